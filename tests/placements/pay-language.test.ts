// The household's pay link reads in the household's language (its request's household_language,
// else ?lang=, else its browser's); the carrier's link for the same placement stays in English, and
// so does the API.
import { describe, expect, it } from 'vitest';
import { call } from '../helpers.ts';
import { fetchPage, formsOf, pagePath, postForm, signedLease } from './payment-fixtures.ts';

const split = { rent_payer: 'carrier', deposit_payer: 'policyholder', fees_payer: 'tpa', household_language: 'es' };

async function splitLease() {
  const s = await signedLease('sandbox', { claim: split, home: { cleaning_fee_cents: 10000 } });
  const placement = async () => (await s.api.get(`/claims/${s.ref}/placement`)).body.data;
  const linkOf = async (payer: string) => pagePath(((await placement()).pay_links as { payer: string; url: string }[]).find((l) => l.payer === payer)!.url);
  return { ...s, placement, linkOf };
}

describe("the household's pay page in its language", () => {
  it('household_language es: the household\'s link reads in Spanish, lang="es-US"; the carrier\'s stays English', async () => {
    const s = await splitLease();
    const path = await s.linkOf('policyholder');
    const household = (await fetchPage(path)).text;
    expect(household).toContain('<html lang="es-US">');
    expect(household).toContain('Pendiente ahora: Primer pago');
    expect(household).toContain('Depósito de seguridad (reembolsable)');
    expect(household).toContain('Pagado por usted');
    expect(household).toContain('Pagar $1,500.00');
    expect(household).not.toContain('Due now');
    expect(household).not.toContain('Paid by');

    const carrier = (await fetchPage(await s.linkOf('carrier'))).text;
    expect(carrier).toContain('<html lang="en-US">');
    expect(carrier).toContain('Due now: First payment');
    expect(carrier).toContain('Paid by the policyholder');
    expect(carrier).not.toContain('Pagado');

    // Paid: the receipt in Spanish, the redirect keeps the language chosen, the API in English.
    const paid = await postForm(`${path}?lang=es-MX`, formsOf(household)[0], 'succeeded');
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe('?result=succeeded&lang=es-MX');
    const receipt = (await call('GET', `${path}?result=succeeded&lang=es-MX`)).text;
    expect(receipt).toContain('<html lang="es-MX">');
    expect(receipt).toContain('Pago recibido');
    expect(receipt).toContain('Pagado hasta ahora');
    expect(JSON.stringify((await s.placement()).homes[0].payments)).not.toMatch(/Primer|pagado/i);
  });

  it('the problem pages of a pay link read in the language the link names', async () => {
    const invalid = await call('GET', '/pay/not-a-token?lang=es');
    expect(invalid.status).toBe(403);
    expect(invalid.text).toContain('<html lang="es-US">');
    expect(invalid.text).toContain('Este enlace de pago no es válido');
    expect((await call('GET', '/pay/not-a-token')).text).toContain('This payment link is not valid');
  });
});
