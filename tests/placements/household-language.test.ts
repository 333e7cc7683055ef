// The household reads its page and its email in its language: the request's household_language
// (es-PR reads Spanish), else its browser's, switchable on the page; what the carrier reads stays in English.
import { describe, expect, it } from 'vitest';
import { call, consoleCommand } from '../helpers.ts';
import { drainJobs, jobsOf, placeWithDates, scene } from './fixtures.ts';

async function sent(claim: Record<string, unknown> = {}) {
  const s = await scene('sandbox', { claim });
  expect((await s.api.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'send', approve_budget: true })).status).toBe(200);
  await drainJobs(s.c.orgId);
  const link = await s.api.get(`/sandbox/claims/${s.ref}/homes/${s.home}/household-link`);
  return { ...s, page: new URL(link.body.data.url).pathname.replace(/^\/functions\/v1/, '') };
}

const answer = (path: string, fields: Record<string, string>) =>
  call('POST', path, { body: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });

describe("the household's language", () => {
  it('household_language es-PR: a Spanish email (subject, text, HTML) whose link opens a Spanish page, lang="es-PR", money and dates as Spanish reads them', async () => {
    const s = await sent({ household_language: 'es-PR', deposit_payer: 'policyholder' });
    const emails = await s.api.get('/sandbox/emails');
    const offered = emails.body.data.find((e: any) => e.topic === 'home.offered')!;
    expect(offered.subject).toMatch(/^Una vivienda para usted: /);
    expect(offered.text).toContain('Su aseguradora encontró una vivienda para usted');
    expect(offered.text).toContain('excepto lo que la página indica que usted paga');
    expect(offered.html).toContain('Ver la vivienda y solicitarla');
    expect(offered.text).toMatch(/\/household\/[^\s?]+\?lang=es-PR/);
    const page = (await call('GET', s.page)).text;
    expect(page).toContain('<html lang="es-PR">');
    expect(page).toContain('Una vivienda para usted');
    expect(page).toContain('Lo que usted paga:</strong> los depósitos reembolsables, $1,500.00, directamente al propietario');
    expect(page).toContain('Su aseguradora paga:</strong> la renta y los cargos');
    expect(page).toContain('Solicitar esta vivienda');
    expect(page).toMatch(/Fechas:<\/strong> desde alrededor del \d{1,2} de [a-z]+ de \d{4}, por unos \d+ mes(es)?</);
    expect(page).not.toContain('Apply for this home');
    expect(page).toContain('href="?lang=en"');
    // The switch: the same page in English, and an answer keeps the chosen language.
    expect((await call('GET', `${s.page}?lang=en`)).text).toContain('<html lang="en-US">');
    const saved = await answer(`${s.page}?lang=en`, { action: 'save' });
    expect(saved.headers.get('location')).toMatch(/\?lang=en$/);
    expect((await call('GET', `${s.page}?lang=en`)).text).toContain('You saved this home');
    expect((await call('GET', s.page)).text).toContain('Usted guardó esta vivienda');
  });

  it('the declining reason reaches the carrier as written; the carrier\'s reads stay in English', async () => {
    const s = await sent({ household_language: 'es' });
    expect((await answer(s.page, { action: 'decline', reason: 'Queda muy lejos de la escuela' })).status).toBe(303);
    const page = (await call('GET', s.page)).text;
    expect(page).toContain('Usted rechazó esta vivienda');
    expect(page).toContain('Su motivo: Queda muy lejos de la escuela');
    const timeline = await s.api.get(`/claims/${s.ref}/timeline`);
    expect(JSON.stringify(timeline.body)).toContain('Queda muy lejos de la escuela');
    expect((await s.api.get(`/claims/${s.ref}`)).body.data.household_language).toBe('es');
  });

  it('without a stated language the page follows Accept-Language, and the emails stay in English', async () => {
    const s = await sent();
    const [job] = await jobsOf(s.c.orgId, 'send_household_link');
    expect(JSON.stringify(job.result)).not.toContain('lang=');
    expect((await call('GET', s.page, { headers: { 'accept-language': 'fr-CA, es-MX;q=0.8, en;q=0.5' } })).text).toContain('<html lang="es-MX">');
    expect((await call('GET', s.page, { headers: { 'accept-language': 'fr' } })).text).toContain('<html lang="en-US">');
  });

  it("the lease goes to e-signature in the household's language (es-PR asks for es), else English; the console's calls list shows which", async () => {
    for (const [claim, language] of [[{ household_language: 'es-PR' }, 'es'], [{}, 'en']] as const) {
      const s = await scene('sandbox', { claim });
      await placeWithDates(s.api, s.ref, s.home);
      await drainJobs(s.c.orgId);
      expect(await jobsOf(s.c.orgId, 'send_contract')).toEqual([expect.objectContaining({ status: 'succeeded', result: expect.objectContaining({ outcome: 'sent', language }) })]);
      const calls = await consoleCommand<{ data: Record<string, unknown>[] }>('calls', 'list', '--org', s.c.orgId, '--kind', 'esign');
      expect(calls.data).toEqual([expect.objectContaining({ call: 'send_contract', reference: s.ref, status: 'done', language })]);
    }
  });

  it("a Spanish household's link, expired by a sandbox clock moved past it, says so in Spanish (the sandbox helper's link names no language)", async () => {
    const s = await sent({ household_language: 'es' });
    expect(s.page).not.toContain('lang=');
    expect((await call('GET', s.page)).status).toBe(200);
    const clock = await s.api.post('/sandbox/clock', { frozen_time: new Date(Date.now() + 15 * 86_400_000).toISOString() });
    expect([200, 201]).toContain(clock.status);
    const expired = await call('GET', s.page, { headers: { 'accept-language': 'en-US' } });
    expect(expired.status).toBe(410);
    expect(expired.text).toContain('<html lang="es');
    expect(expired.text).toContain('Este enlace venció');
    expect(expired.text).not.toContain('This link has expired');
    // A household that stated no language reads the browser's, as before.
    const other = await sent();
    await other.api.post('/sandbox/clock', { frozen_time: new Date(Date.now() + 15 * 86_400_000).toISOString() });
    expect((await call('GET', other.page, { headers: { 'accept-language': 'en-US' } })).text).toContain('This link has expired');
  });

  it('the problem pages of a link read in the language the link names', async () => {
    const expired = await call('GET', '/household/not-a-token?lang=es');
    expect(expired.status).toBe(403);
    expect(expired.text).toContain('<html lang="es-US">');
    expect(expired.text).toContain('Este enlace no es válido');
  });

  it('the 405 page of a page address reads in the language the browser asks for, English by default', async () => {
    const put = await call('PUT', '/household/some.signed.token?lang=es', { headers: { 'accept-language': 'es-MX' } });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST');
    expect(put.text).toContain('<html lang="es-US">');
    expect(put.text).toContain('PUT no es posible en esta página');
    const pay = await call('DELETE', '/pay/some.signed.token', { headers: { 'accept-language': 'es-MX, en;q=0.5' } });
    expect(pay.text).toContain('<html lang="es-MX">');
    expect(pay.text).toContain('No es posible aquí');
    expect((await call('PUT', '/pay/some.signed.token')).text).toContain('PUT is not possible on this page');
  });
});
