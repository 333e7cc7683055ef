// `npm run e2e`: the pages a person sees, driven in a real headless Chromium (not part of
// `npm test`). Starts the server on the embedded PostgreSQL in a fresh DATA_DIR, opens sandbox
// organisations, then walks the send flow as its people would: the household on its own page
// (save, propose dates first, then apply; another household declines; a third, whose request states
// Spanish, walks its page in Spanish with no English phrase of the catalogue on it and the switch
// back to English), the landlord through the
// provider API, the carrier through the API, then the lease signed but unpaid, the household paying
// the deposit it owes from its own page, and the carrier paying its share through its own pay link
// (each payer's link showing its own share only); last, the 503 pages of a live deployment whose
// payment processor is not set; last, the operator's mail catcher showing the household's email. Each page state is checked with axe-core (no serious or critical
// violation), for touch targets of at least 44 px, and written as screenshots at 390 px and 1280 px
// under e2e/screenshots/ (ignored by git). It fails on a page that loads a script or style from
// another origin, a form control without a label, a console error, or a state the page does not show.
//
// Chromium: CHROMIUM_PATH, else Debian's package (/usr/bin/chromium), else the one playwright-core
// installs (`npx playwright-core install chromium`); without any it says so in one line.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { chromium, type Browser, type Page } from 'playwright-core';
import { runCommand } from '../console/commands.ts';
import { openDatabase } from '../lib/database.ts';
import { child, stopped, waitFor } from '../lib/processes.ts';
import { freePort } from '../lib/scratch.ts';
import { pgTypes } from '../../shared/db/client.ts';
import { signPayLink, signSetupLink } from '../../shared/placements/pay-link.ts';
import { householdLinkEmail } from '../../shared/placements/commands/household-link.ts';
import type { ClaimRow } from '../../shared/claims/repository.ts';
import { smtpEmail } from '../../shared/placements/ports/smtp.ts';
import { startCatcher } from '../mail/catcher.ts';
import { en } from '../../shared/i18n/en.ts';

/** The English catalogue's phrases (its texts of more than one word): a page in another language shows none of them. */
const englishWords = (function phrases(value: unknown): string[] {
  if (typeof value === 'string') return value.includes(' ') ? [value] : [];
  return value && typeof value === 'object' ? Object.values(value).flatMap(phrases) : [];
})(en);

const root = new URL('../../', import.meta.url).pathname;
const shots = join(root, 'e2e/screenshots');
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
const step = (text: string) => console.log(`[${((performance.now() - started) / 1000).toFixed(1)} s] ${text}`);
const started = performance.now();
const checks: string[] = [];
const screenshots: string[] = [];

function expect(condition: boolean, what: string): void {
  if (!condition) throw new Error(`e2e: ${what}`);
  checks.push(what);
}

/** The Chromium to drive: CHROMIUM_PATH, Debian's package, or playwright-core's own; else one line saying how to get one. */
function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', chromium.executablePath()].filter((path): path is string => !!path);
  const found = candidates.find((path) => existsSync(path));
  if (found) return found;
  console.error('e2e: no Chromium found: install one with `apt-get install chromium` (Debian) or `npx playwright-core install chromium`, or set CHROMIUM_PATH to a Chromium or Chrome executable.');
  process.exit(1);
}

/** axe-core's source, injected into each page state (a devDependency). */
const axeSource = readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Opens a page on a phone-sized viewport, recording what it loads from other origins and its console errors. */
async function openPage(browser: Browser, url: string, expectedStatus = 200) {
  // bypassCSP lets the driver's own probes run under the page's default-src 'none'; what the page loads is checked by the route below.
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, bypassCSP: true });
  const page = await context.newPage();
  const foreign: string[] = [];
  const errors: string[] = [];
  const origin = new URL(url).origin;
  // The provider's photos are on its own https host (not reachable here): allowed, not loaded.
  await page.route('**/*', (route) => {
    const request = route.request();
    if (new URL(request.url()).origin === origin) return route.continue();
    if (request.resourceType() !== 'image') foreign.push(`${request.resourceType()} ${request.url()}`);
    return route.abort();
  });
  page.on('console', (message) => {
    if (message.type() === 'error' && !/Failed to load resource/.test(message.text())) errors.push(message.text());
  });
  const response = await page.goto(url);
  if (!response || response.status() !== expectedStatus) throw new Error(`${url}: ${response?.status()} ${(await page.content()).slice(0, 600)}`);
  if (process.env.E2E_DEBUG) console.log(response.status(), (await page.content()).slice(0, 1500));
  return { page, foreign, errors, close: () => context.close() };
}

/** Screenshots of the page state at a phone's width (390 px) and a desktop's (1280 px). */
async function shoot(page: Page, name: string) {
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await page.screenshot({ path: join(shots, `${name}-${width}.png`), fullPage: true });
    screenshots.push(`${name}-${width}.png`);
  }
  await page.setViewportSize({ width: 390, height: 844 });
}

/** axe-core on the page as it stands: no serious or critical violation. */
async function assertAxe(page: Page, what: string) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(await axeSource);
  const violations = await page.evaluate(async () => {
    const { violations } = await (window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: { id: string; impact: string | null; nodes: { target: unknown[] }[] }[] }> } })
      .axe.run(document, { resultTypes: ['violations'] });
    return violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => String(n.target[0])) }));
  });
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.length === 0, `${what}: axe-core finds no serious or critical violation (${serious.map((v) => `${v.id} ${v.impact} at ${v.targets.join(' ')}`).join('; ')})`);
}

/** Every link and button can be pressed on a phone: at least 44 px tall. */
async function assertTouchTargets(page: Page, what: string) {
  const small = await page.$$eval('a, button', (targets) =>
    targets.map((t) => ({ text: t.textContent?.trim() ?? '', height: t.getBoundingClientRect().height })).filter((t) => t.height < 44).map((t) => `${t.text} (${Math.round(t.height)} px)`));
  expect(small.length === 0, `${what}: every link and button is at least 44 px tall (${small.join(', ')})`);
}

/** A page state: labels and names, axe-core, touch targets, and its screenshots at both widths. */
async function checkState(page: Page, name: string, what: string, lang = 'en') {
  await assertAccessible(page, what, lang);
  await assertAxe(page, what);
  await assertTouchTargets(page, what);
  await shoot(page, name);
}

/** Every input, textarea and select of the page has a label, and every button a name. */
async function assertAccessible(page: Page, what: string, lang: string) {
  const unlabelled = await page.$$eval('input:not([type=hidden]), textarea, select', (controls) =>
    controls.filter((control) => !control.id || !document.querySelector(`label[for="${control.id}"]`)).length);
  expect(unlabelled === 0, `${what}: every form control has a label`);
  const unnamed = await page.$$eval('button', (buttons) => buttons.filter((button) => !button.textContent?.trim()).length);
  expect(unnamed === 0, `${what}: every button says what it does`);
  expect((await page.getAttribute('html', 'lang'))?.split('-')[0] === lang, `${what}: the page names its language (${lang})`);
}

async function main() {
  const executablePath = chromiumPath();
  await mkdir(shots, { recursive: true });
  const dataDir = await mkdtemp(join(tmpdir(), 'hps-e2e-'));
  const port = await freePort();
  // One link secret for the server and this script, which signs a provider's setup link itself.
  process.env.PAY_LINK_SECRET ??= `e2e-${crypto.randomUUID()}${crypto.randomUUID()}`;
  const server = child('scripts/server.ts', {
    DATA_DIR: dataDir, PORT: String(port), DB_PORT: String(await freePort()), DATABASE_URL: undefined, MIGRATE: 'true', PAY_LINK_SECRET: process.env.PAY_LINK_SECRET,
  });
  server.stdout!.resume();
  const base = `http://127.0.0.1:${port}/functions/v1`;
  let sql: postgres.Sql | undefined;
  let browser: Browser | undefined;
  try {
    step(`starting the server in ${dataDir}`);
    await waitFor(`${base}/health`, 120_000);
    sql = postgres((await openDatabase({ dataDir })).url, { max: 2, onnotice: () => {}, types: pgTypes });
    const consoleData = async <T>(...argv: string[]) => ((await runCommand(sql!, argv)) as { data: T }).data;
    const carrier = (await consoleData<{ id: string }>('org', 'create', '--name', 'E2E carrier', '--side', 'carrier')).id;
    const provider = (await consoleData<{ id: string }>('org', 'create', '--name', 'E2E provider', '--side', 'provider')).id;
    const carrierKey = (await consoleData<{ key: string }>('key', 'create', '--org', carrier, '--env', 'sandbox')).key;
    const providerKey = (await consoleData<{ key: string }>('key', 'create', '--org', provider, '--env', 'sandbox')).key;
    const api = async (key: string, method: string, path: string, body?: unknown) => {
      const response = await fetch(`${base}${path}`, {
        method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined,
      });
      const json = (await response.json()) as any;
      if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json).slice(0, 300)}`);
      return json.data ?? json;
    };
    const carrierApi = (method: string, path: string, body?: unknown) => api(carrierKey, method, path, body);

    step('a provider publishes a home; the carrier opens two requests near it');
    const home = await api(providerKey, 'POST', '/properties', {
      external_id: 'E2E-1', name: 'Maple Court 204', address: '204 Maple Ct', city: 'Austin', state: 'TX', zip_code: '78701',
      monthly_rate: 2400, bedrooms: 2, bathrooms: 1.5, sqft: 950, furnished_status: 'furnished', available_from: inDays(5),
      security_deposit: 1500, cleaning_fee: 150, application_fee: 0, pet_fee: 0, image_url: 'https://img.example.com/maple-204.jpg',
      description: 'A bright furnished flat, ten minutes from the school.', amenities: ['wifi', 'washer_dryer', 'parking'], pet_policy: 'Cats and small dogs welcome',
    });
    const requestBody = (household: string) => ({
      household_email: `${household}@example.com`, loss_address: '12 Harbor Lane', loss_city: 'Austin', loss_state: 'TX', loss_zip: '78701',
      target_move_in: inDays(30), est_length_months: 3, bedrooms: 2, bathrooms: 1, sqft: 900, adults: 2, children: 1, property_type: 'apartment',
      // The carrier pays rent and fees, the policyholder the deposit: the pay page shows two shares.
      furnishing: 'furnished', rent_payer: 'carrier', deposit_payer: 'policyholder',
    });
    const request = (household: string) => carrierApi('POST', '/claims', requestBody(household));
    const first = await request('rivera');
    const second = await request('chen');
    for (const claim of [first, second]) await carrierApi('POST', `/claims/${claim.claim_ref}/options`, { property_id: home.id, action: 'send', approve_budget: true });
    const linkOf = async (ref: string) => (await carrierApi('GET', `/sandbox/claims/${ref}/homes/${home.id}/household-link`)).url as string;

    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });

    step('the household opens its page, saves the home, proposes other dates first, then applies');
    const household = await openPage(browser, await linkOf(first.claim_ref));
    const page = household.page;
    const body = async (p: Page = page) => (await p.textContent('body')) ?? '';
    expect((await page.textContent('h1'))?.includes('A home for you') === true, 'household page: the offer is shown');
    expect((await body()).includes('What you pay: the refundable deposits, $1,500.00'), 'household page: the household is told the deposit it pays, with its amount');
    expect((await body()).includes('Your insurer pays: the rent'), 'household page: what the insurer pays is shown');
    expect(/Rent, each month\s*\$2,400\.00/.test(await body()), 'household page: the rent is shown');
    expect((await body()).includes('Washer and dryer') && !(await body()).includes('washer_dryer'), 'household page: amenities read as words');
    await checkState(page, 'household-1-offer', 'household page (offer)');
    await page.getByRole('button', { name: 'Save it for later' }).click();
    await page.waitForLoadState();
    expect((await page.textContent('h1'))?.includes('You saved this home') === true, 'household page: save is recorded and shown');
    await checkState(page, 'household-2-saved', 'household page (saved)');
    await page.getByLabel('Move in').fill(inDays(35));
    await page.getByLabel('Move out').fill(inDays(130));
    await page.getByRole('button', { name: 'Propose these dates' }).click();
    await page.waitForLoadState();
    expect((await page.textContent('h1'))?.includes('You proposed other dates') === true, 'household page: the proposal is recorded and shown');
    expect((await page.getByRole('button', { name: 'Apply for this home' }).count()) === 1, 'household page: after proposing first, Apply is still offered');
    expect((await body()).includes('You have not applied for the home yet'), 'household page: after proposing first, the household is told to apply');
    expect((await page.getByRole('button', { name: 'Decline this home' }).count()) === 1, 'household page: after proposing first, Decline is still offered');
    await checkState(page, 'household-3-proposed', 'household page (proposed, not applied)');
    await page.getByRole('button', { name: 'Apply for this home' }).click();
    await page.waitForLoadState();
    expect((await body()).includes('Dates you proposed'), 'household page: the application keeps the proposal');
    expect((await page.getByRole('button', { name: 'Apply for this home' }).count()) === 0, 'household page: applied, Apply is no longer offered');
    await checkState(page, 'household-4-proposed-applied', 'household page (proposed and applied)');
    expect(household.foreign.length === 0, `household page: nothing but images from another origin (${household.foreign.join(', ')})`);
    expect(household.errors.length === 0, `household page: no console error (${household.errors.join(', ')})`);
    await household.close();

    step('another household declines with a reason');
    const other = await openPage(browser, await linkOf(second.claim_ref));
    await other.page.getByLabel('Why not? (your insurer reads this)').fill('Too far from the children\'s school.');
    await other.page.getByRole('button', { name: 'Decline this home' }).click();
    await other.page.waitForLoadState();
    expect((await other.page.textContent('h1'))?.includes('You declined this home') === true, 'household page: the decline is recorded and shown');
    await checkState(other.page, 'household-5-declined', 'household page (declined)');
    await other.close();

    step('a household whose request states Spanish (household_language: es) reads its page in Spanish: offer, save, other dates, decline');
    const spanish = await carrierApi('POST', '/claims', { ...requestBody('garcia'), household_language: 'es' });
    await carrierApi('POST', `/claims/${spanish.claim_ref}/options`, { property_id: home.id, action: 'send', approve_budget: true });
    const es = await openPage(browser, await linkOf(spanish.claim_ref));
    const untranslated = async () => {
      const text = await body(es.page);
      return englishWords.filter((words) => text.includes(words));
    };
    const spanishState = async (name: string, heading: string, what: string) => {
      expect((await es.page.textContent('h1'))?.includes(heading) === true, `household page in Spanish: ${what}`);
      const english = await untranslated();
      expect(english.length === 0, `household page in Spanish (${name}): no English words of the catalogue (${english.join('; ')})`);
      await checkState(es.page, `household-es-${name}`, `household page in Spanish (${name})`, 'es');
    };
    expect((await body(es.page)).includes('Lo que usted paga: los depósitos reembolsables, $1,500.00'), 'household page in Spanish: the deposit it pays, with its amount');
    await spanishState('1-offer', 'Una vivienda para usted', 'the offer');
    await es.page.getByRole('button', { name: 'Guardarla para después' }).click();
    await es.page.waitForLoadState();
    await spanishState('2-saved', 'Usted guardó esta vivienda', 'save is recorded');
    await es.page.getByLabel('Fecha de entrada').fill(inDays(35));
    await es.page.getByLabel('Fecha de salida').fill(inDays(130));
    await es.page.getByRole('button', { name: 'Proponer estas fechas' }).click();
    await es.page.waitForLoadState();
    await spanishState('3-proposed', 'Usted propuso otras fechas', 'the proposal is recorded');
    await es.page.getByLabel('¿Por qué no? (su aseguradora leerá esto)').fill('Queda muy lejos de la escuela de los niños.');
    await es.page.getByRole('button', { name: 'Rechazar esta vivienda' }).click();
    await es.page.waitForLoadState();
    await spanishState('4-declined', 'Usted rechazó esta vivienda', 'the decline is recorded');
    const reasons = JSON.stringify(await carrierApi('GET', `/claims/${spanish.claim_ref}/timeline`));
    expect(reasons.includes('Queda muy lejos de la escuela de los niños.'), "carrier: the household's reason for declining reaches it as written");
    await es.page.getByRole('link', { name: 'English' }).click();
    await es.page.waitForLoadState();
    expect((await es.page.textContent('h1'))?.includes('You declined this home') === true && (await es.page.getAttribute('html', 'lang')) === 'en-US', 'household page: the switch shows the page in English');
    expect(es.errors.length === 0, `household page in Spanish: no console error (${es.errors.join(', ')})`);
    await es.close();

    step('the landlord approves through the provider API; the carrier approves the proposed dates; both sign (sandbox helpers)');
    const [application] = (await api(providerKey, 'GET', '/properties/applications?status=pending')) as { id: string }[];
    await api(providerKey, 'POST', `/properties/applications/${application.id}`, { decision: 'approve' });
    await carrierApi('POST', `/claims/${first.claim_ref}/dates/approve-proposal`, { property_id: home.id });
    checks.push('carrier: the proposal of a household that proposed before applying is approved');
    for (let tries = 0; ; tries++) {
      const placement = await carrierApi('GET', `/claims/${first.claim_ref}/placement`);
      if (placement.homes[0].lease?.status === 'sent_for_signature') break;
      if (tries > 100) throw new Error('the contract was not sent');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    for (const who of ['household', 'landlord']) await carrierApi('POST', `/sandbox/claims/${first.claim_ref}/homes/${home.id}/${who}`, { action: 'sign' });

    step("signed, nothing paid: the carrier's link shows both shares and takes its own; the household's page says signed");
    const placement = await carrierApi('GET', `/claims/${first.claim_ref}/placement`);
    const payLinks = placement.pay_links as { payer: string; url: string }[];
    expect(payLinks.map((l) => l.payer).join() === 'carrier,policyholder', 'placement: one pay link per payer (carrier, policyholder)');
    const carrierPay = await openPage(browser, placement.pay_in_app_url as string);
    expect((await body(carrierPay.page)).includes('Paid by the policyholder'), "carrier's pay link: the policyholder's share is shown");
    expect((await carrierPay.page.locator('form').count()) === 1, "carrier's pay link: a button for the carrier's own share only");
    expect((await body(carrierPay.page)).includes('The policyholder pays this share from its own link'), "carrier's pay link: the policyholder's share is read-only");
    await checkState(carrierPay.page, 'pay-1-carrier-link-due', "carrier's pay page (both shares due)");
    const signed = await openPage(browser, await linkOf(first.claim_ref));
    expect((await signed.page.textContent('h1'))?.includes('Your lease is signed') === true, 'household page: signed but unpaid says the lease is signed');
    expect(!(await body(signed.page)).includes('out for signature'), 'household page: signed but unpaid no longer says the lease is out for signature');
    await checkState(signed.page, 'household-6-signed-unpaid', 'household page (signed, deposit due)');

    step('the household pays the deposit it owes from its own page: its own pay link, its share alone');
    await signed.page.getByRole('link', { name: 'Pay the refundable deposits, $1,500.00' }).click();
    await signed.page.waitForLoadState();
    expect(new URL(signed.page.url()).pathname.includes('/pay/'), "household page: the Pay button opens the household's own pay page");
    expect((await body(signed.page)).includes('Paid by the policyholder'), "policyholder's pay link: its share is shown");
    expect(!(await body(signed.page)).includes('Paid by the insurance carrier'), "policyholder's pay link: the insurer's share is not shown");
    expect((await signed.page.locator('form').count()) === 1, "policyholder's pay link: one form, its own share");
    await checkState(signed.page, 'pay-2-policyholder-link-due', "policyholder's pay page (its share due)");
    await signed.page.getByRole('button', { name: 'Pay $1,500.00' }).click();
    await signed.page.waitForLoadState();
    expect((await body(signed.page)).includes('Payment received'), "policyholder's pay link: the deposit is paid");
    expect((await body(signed.page)).includes('Nothing is due from you right now'), "policyholder's pay link: nothing more due from the policyholder");
    await checkState(signed.page, 'pay-3-policyholder-paid', "policyholder's pay page (paid)");
    expect(signed.foreign.length === 0, `pay page: nothing from another origin (${signed.foreign.join(', ')})`);
    await signed.close();

    step("the carrier pays its share through its own link; the stay is booked");
    await carrierPay.page.reload();
    expect((await body(carrierPay.page)).includes('Paid by the insurance carrier') && !(await body(carrierPay.page)).includes('Paid by the policyholder'), "carrier's pay link: only the carrier's share is left");
    await carrierPay.page.locator('button[value="succeeded"]').click();
    await carrierPay.page.waitForLoadState();
    expect((await body(carrierPay.page)).includes('Nothing due right now'), "carrier's pay link: nothing due once both shares are paid");
    expect((await body(carrierPay.page)).includes('The booking is confirmed.'), "carrier's pay link: the booking is confirmed");
    await checkState(carrierPay.page, 'pay-4-carrier-paid', "carrier's pay page (paid, booked)");
    expect(carrierPay.foreign.length === 0, `pay page: nothing from another origin (${carrierPay.foreign.join(', ')})`);
    await carrierPay.close();
    const stay = await openPage(browser, await linkOf(first.claim_ref));
    expect((await stay.page.textContent('h1'))?.includes('Your stay is booked') === true, 'household page: the booked stay is shown');
    const [download] = await Promise.all([stay.page.waitForEvent('download'), stay.page.getByRole('link', { name: 'Download your signed lease (PDF)' }).click()]);
    expect(download.suggestedFilename() === `lease-${first.claim_ref}.pdf`, 'household page: the signed lease downloads as a PDF');
    await checkState(stay.page, 'household-7-booked', 'household page (booked)');
    await stay.close();

    step("a live deployment without its payment processor: a provider's setup and a payer's Pay answer a plain 503 page");
    const setup = await openPage(browser, `${base}/pay/setup/${await signSetupLink(provider, 'live')}`);
    expect((await setup.page.getByRole('button', { name: 'Continue to the payment processor' }).count()) === 1, 'setup page: one button, nothing done on opening');
    await checkState(setup.page, 'setup-1-continue', 'setup page');
    const [setupAnswer] = await Promise.all([setup.page.waitForResponse((r) => r.request().method() === 'POST'), setup.page.getByRole('button', { name: 'Continue to the payment processor' }).click()]);
    await setup.page.waitForLoadState();
    expect(setupAnswer.status() === 503 && (await setup.page.textContent('h1'))?.includes('Payments are not available yet') === true, 'setup page, live without a processor: 503 "Payments are not available yet"');
    await checkState(setup.page, 'setup-2-not-configured', 'setup page (503)');
    await setup.close();
    // A live pay page pressed Pay on: the form a live page shows, posted to a live carrier's link.
    const liveLink = `${base}/pay/${await signPayLink({ placementId: crypto.randomUUID(), orgId: carrier, environment: 'live', leaseId: null, payer: 'carrier' })}`;
    const live = await openPage(browser, liveLink, 404);
    await live.page.setContent(`<!doctype html><html lang="en"><title>Pay</title><main><form method="post" action="${liveLink}">
<input type="hidden" name="charge_type" value="initial"><input type="hidden" name="payer" value="carrier"><input type="hidden" name="amount_cents" value="100">
<button type="submit">Pay</button></form></main></html>`);
    const [payAnswer] = await Promise.all([live.page.waitForResponse((r) => r.request().method() === 'POST'), live.page.getByRole('button', { name: 'Pay' }).click()]);
    await live.page.waitForLoadState();
    expect(payAnswer.status() === 503 && (await live.page.textContent('h1'))?.includes('Payments are not available yet') === true, 'pay page, live without a processor: 503 "Payments are not available yet", nothing recorded');
    await checkState(live.page, 'pay-5-not-configured', 'pay page (503)');
    await live.close();

    step("the operator's mail catcher (`npm run mail`): the household's email in its inbox, its HTML in a sandboxed frame");
    const catcher = await startCatcher({ smtpPort: 0, httpPort: 0 });
    try {
      const claimRow = { claim_ref: first.claim_ref, rent_payer: 'carrier', deposit_payer: 'policyholder', fees_payer: null } as unknown as ClaimRow;
      const householdEmail = householdLinkEmail({ url: await linkOf(first.claim_ref), to: 'rivera@example.com', expires_at: `${inDays(14)}T00:00:00Z` }, 'Maple Court 204', claimRow);
      await smtpEmail({ url: `smtp://127.0.0.1:${catcher.smtpPort}`, from: 'Placements <placements@example.test>' }).send(householdEmail);
      const inbox = await openPage(browser, `http://127.0.0.1:${catcher.httpPort}/`);
      expect((await inbox.page.getByRole('link', { name: 'A home for you: Maple Court 204' }).count()) === 1, 'mail catcher: the inbox lists the household\'s email by its subject');
      await checkState(inbox.page, 'mail-1-inbox', 'mail catcher (inbox)');
      await inbox.page.getByRole('link', { name: 'A home for you: Maple Court 204' }).click();
      await inbox.page.waitForLoadState();
      const frame = inbox.page.frameLocator('iframe[sandbox]');
      expect((await frame.getByRole('link', { name: 'See the home and apply for it' }).count()) === 1, 'mail catcher: the message\'s HTML is shown in a sandboxed frame');
      expect(((await inbox.page.textContent('pre')) ?? '').includes('/household/'), 'mail catcher: the message\'s text is shown, the link with it');
      await checkState(inbox.page, 'mail-2-message', 'mail catcher (message)');
      expect(inbox.foreign.length === 0 && inbox.errors.length === 0, `mail catcher: nothing loaded from elsewhere, no console error (${[...inbox.foreign, ...inbox.errors].join('; ')})`);
      await inbox.close();
    } finally {
      await catcher.stop();
    }

    console.log(`\n${checks.length} checks passed in ${((performance.now() - started) / 1000).toFixed(1)} s; screenshots in e2e/screenshots/: ${screenshots.join(', ')}`);
  } finally {
    await browser?.close();
    await sql?.end();
    await stopped(server);
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
