// `npm run e2e`: the pages a person sees, driven in a real headless Chromium (not part of
// `npm test`). Starts the server on the embedded PostgreSQL in a fresh DATA_DIR, opens sandbox
// organisations, then walks the send flow as its people would: the household on its own page
// (save, propose dates, apply; another household declines), the landlord through the provider API,
// the carrier through the API, and the payer on the pay page. Each state is written as a screenshot
// under e2e/screenshots/ (ignored by git). It fails on a page that loads a script or style from
// another origin, a form control without a label, a console error, or a state the page does not show.
//
// Chromium: Debian's package (`apt-get install chromium`), at /usr/bin/chromium or CHROMIUM_PATH.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { chromium, type Browser, type Page } from 'playwright-core';
import { runCommand } from '../console/commands.ts';
import { openDatabase } from '../lib/database.ts';
import { child, stopped, waitFor } from '../lib/processes.ts';
import { freePort } from '../lib/scratch.ts';
import { pgTypes } from '../../shared/db/client.ts';
import { signSetupLink } from '../../shared/placements/pay-link.ts';

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

/** Opens a page on a phone-sized viewport, recording what it loads from other origins and its console errors. */
async function openPage(browser: Browser, url: string) {
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
  if (!response || response.status() >= 400) throw new Error(`${url}: ${response?.status()} ${(await page.content()).slice(0, 600)}`);
  if (process.env.E2E_DEBUG) console.log(response.status(), (await page.content()).slice(0, 1500));
  return { page, foreign, errors, close: () => context.close() };
}

async function shoot(page: Page, name: string) {
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  screenshots.push(`${name}.png`);
}

/** Every input, textarea and select of the page has a label, and every button a name. */
async function assertAccessible(page: Page, what: string) {
  const unlabelled = await page.$$eval('input:not([type=hidden]), textarea, select', (controls) =>
    controls.filter((control) => !control.id || !document.querySelector(`label[for="${control.id}"]`)).length);
  expect(unlabelled === 0, `${what}: every form control has a label`);
  const unnamed = await page.$$eval('button', (buttons) => buttons.filter((button) => !button.textContent?.trim()).length);
  expect(unnamed === 0, `${what}: every button says what it does`);
  expect((await page.getAttribute('html', 'lang')) === 'en', `${what}: the page names its language`);
}

async function main() {
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
      description: 'A bright furnished flat, ten minutes from the school.', amenities: ['wifi', 'washer', 'parking'], pet_policy: 'Cats and small dogs welcome',
    });
    const request = (household: string) => carrierApi('POST', '/claims', {
      household_email: `${household}@example.com`, loss_address: '12 Harbor Lane', loss_city: 'Austin', loss_state: 'TX', loss_zip: '78701',
      target_move_in: inDays(30), est_length_months: 3, bedrooms: 2, bathrooms: 1, sqft: 900, adults: 2, children: 1, property_type: 'apartment',
      // The carrier pays rent and fees, the policyholder the deposit: the pay page shows two shares.
      furnishing: 'furnished', rent_payer: 'carrier', deposit_payer: 'policyholder',
    });
    const first = await request('rivera');
    const second = await request('chen');
    for (const claim of [first, second]) await carrierApi('POST', `/claims/${claim.claim_ref}/options`, { property_id: home.id, action: 'send', approve_budget: true });
    const linkOf = async (ref: string) => (await carrierApi('GET', `/sandbox/claims/${ref}/homes/${home.id}/household-link`)).url as string;

    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });

    step('the household opens its page, saves the home, proposes dates and applies');
    const household = await openPage(browser, await linkOf(first.claim_ref));
    const page = household.page;
    expect((await page.textContent('h1'))?.includes('A home for you') === true, 'household page: the offer is shown');
    expect((await page.textContent('body'))?.includes('What you pay: the refundable deposits') === true, 'household page: the household is told it pays the deposit, the insurer the rest');
    await assertAccessible(page, 'household page');
    await shoot(page, 'household-1-offer');
    await page.getByRole('button', { name: 'Save it for later' }).click();
    await page.waitForLoadState();
    expect((await page.textContent('h1'))?.includes('You saved this home') === true, 'household page: save is recorded and shown');
    await shoot(page, 'household-2-saved');
    await page.getByRole('button', { name: 'Apply for this home' }).click();
    await page.waitForLoadState();
    expect((await page.textContent('h1'))?.includes('You applied') === true, 'household page: apply is recorded and shown');
    await shoot(page, 'household-3-applied');
    await page.getByLabel('Move in').fill(inDays(35));
    await page.getByLabel('Move out').fill(inDays(130));
    await page.getByRole('button', { name: 'Propose these dates' }).click();
    await page.waitForLoadState();
    expect((await page.textContent('h1'))?.includes('You proposed other dates') === true, 'household page: the proposal is recorded and shown');
    await shoot(page, 'household-4-proposed');
    expect(household.foreign.length === 0, `household page: nothing but images from another origin (${household.foreign.join(', ')})`);
    expect(household.errors.length === 0, `household page: no console error (${household.errors.join(', ')})`);
    await household.close();

    step('another household declines with a reason');
    const other = await openPage(browser, await linkOf(second.claim_ref));
    await other.page.getByLabel('Why not? (your insurer reads this)').fill('Too far from the children\'s school.');
    await other.page.getByRole('button', { name: 'Decline this home' }).click();
    await other.page.waitForLoadState();
    expect((await other.page.textContent('h1'))?.includes('You declined this home') === true, 'household page: the decline is recorded and shown');
    await shoot(other.page, 'household-5-declined');
    await other.close();

    step('the landlord approves through the provider API; the carrier sets dates; both sign (sandbox helpers)');
    const [application] = (await api(providerKey, 'GET', '/properties/applications?status=pending')) as { id: string }[];
    await api(providerKey, 'POST', `/properties/applications/${application.id}`, { decision: 'approve' });
    await carrierApi('POST', `/claims/${first.claim_ref}/dates/approve-proposal`, { property_id: home.id });
    for (let tries = 0; ; tries++) {
      const placement = await carrierApi('GET', `/claims/${first.claim_ref}/placement`);
      if (placement.homes[0].lease?.status === 'sent_for_signature') break;
      if (tries > 100) throw new Error('the contract was not sent');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    for (const who of ['household', 'landlord']) await carrierApi('POST', `/sandbox/claims/${first.claim_ref}/homes/${home.id}/${who}`, { action: 'sign' });

    step('the payer pays on the pay page; the household page then shows the stay');
    const payUrl = (await carrierApi('GET', `/claims/${first.claim_ref}/placement`)).pay_in_app_url as string;
    const pay = await openPage(browser, payUrl);
    await assertAccessible(pay.page, 'pay page');
    expect((await pay.page.textContent('body'))?.includes('Due now') === true, 'pay page: what is due is shown');
    expect((await pay.page.locator('form').count()) === 2, 'pay page: one form per payer\'s share');
    await shoot(pay.page, 'pay-1-due');
    await pay.page.getByRole('button', { name: /^Pay .* \(the policyholder's share\)$/ }).click();
    await pay.page.waitForLoadState();
    expect((await pay.page.textContent('body'))?.includes('Paid by the insurance carrier') === true, 'pay page: the carrier\'s share is still due after the deposit is paid');
    expect((await pay.page.locator('form').count()) === 1, 'pay page: the paid share is no longer offered');
    await shoot(pay.page, 'pay-2-share-paid');
    await pay.page.locator('button[value="succeeded"]').click();
    await pay.page.waitForLoadState();
    expect((await pay.page.textContent('body'))?.includes('Nothing due right now') === true, 'pay page: nothing due once both shares are paid');
    expect((await pay.page.textContent('body'))?.includes('Paid so far') === true, 'pay page: the payment is shown as the server recorded it');
    await shoot(pay.page, 'pay-3-paid');
    expect(pay.foreign.length === 0, `pay page: nothing from another origin (${pay.foreign.join(', ')})`);
    await pay.close();
    const stay = await openPage(browser, await linkOf(first.claim_ref));
    expect((await stay.page.textContent('h1'))?.includes('Your stay is booked') === true, 'household page: the booked stay is shown');
    const [download] = await Promise.all([stay.page.waitForEvent('download'), stay.page.getByRole('link', { name: 'Download your signed lease (PDF)' }).click()]);
    expect(download.suggestedFilename() === `lease-${first.claim_ref}.pdf`, 'household page: the signed lease downloads as a PDF');
    await shoot(stay.page, 'household-6-booked');
    await stay.close();

    step("a provider opens its payout setup link: a page with one button, nothing created yet");
    const setup = await openPage(browser, `${base}/pay/setup/${await signSetupLink(provider, 'live')}`);
    await assertAccessible(setup.page, 'setup page');
    expect((await setup.page.getByRole('button', { name: 'Continue to the payment processor' }).count()) === 1, 'setup page: one button, nothing done on opening');
    await shoot(setup.page, 'setup-1-continue');
    await setup.close();

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
