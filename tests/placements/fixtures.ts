// Shared set-up of the placement tests: a carrier with a request, a provider with a home, and the
// job runner drained for the carrier (the send-contract and email jobs).
import { runDueJobs } from '../../shared/jobs/runner.ts';
import { jobRegistry } from '../../shared/job-registry.ts';
import { carrier, claimBody, inDays, insertHome, provider, sourced, type HomeSeed } from '../claims/fixtures.ts';
import { consoleCommand, ownerSql } from '../helpers.ts';

export { inDays };

export type Api = Awaited<ReturnType<typeof carrier>>['sandboxApi'];

/**
 * A carrier, a provider with one home, and a request of the given environment with household_email, sourced.
 * `providerOrg` names an existing provider (with payout accounts) to own the home instead of a new one.
 */
export async function scene(
  environment: 'live' | 'sandbox' = 'sandbox',
  options: { home?: HomeSeed; claim?: Record<string, unknown>; providerOrg?: string } = {},
) {
  const c = await carrier();
  const providerOrg = options.providerOrg ?? await provider();
  const home = await insertHome(providerOrg, options.home);
  const api = environment === 'sandbox' ? c.sandboxApi : c.liveApi;
  if (environment === 'live') await linkBilling(c.orgId);
  const res = await api.post('/claims', claimBody({ household_email: 'family@example.com', adjuster_email: 'adjuster@example.com', ...options.claim }));
  if (res.status !== 201) throw new Error(`claim not created: ${res.status} ${res.text}`);
  const claim = res.body.data as { id: string; claim_ref: string; status_primary: string };
  await sourced(claim.id);
  return { c, api, providerOrg, home, claim, ref: claim.claim_ref };
}

export async function linkBilling(orgId: string) {
  await ownerSql()`insert into app.carrier_billing_accounts (org_id, account_ref) values (${orgId}, ${`acct_${orgId.slice(0, 8)}`}) on conflict do nothing`;
}

/** Runs the jobs due for these organisations, as the scheduler would. */
export async function drainJobs(...organisations: string[]) {
  return runDueJobs({ registry: jobRegistry, organisations });
}

/** Places the home (budget approved in the same call) and sets dates; returns the lease. */
export async function placeWithDates(api: Api, ref: string, home: string, moveIn = inDays(40), moveOut = inDays(130), signer: Record<string, string> = {}) {
  const placed = await api.post(`/claims/${ref}/options`, { property_id: home, action: 'place', approve_budget: true, ...signer });
  if (placed.status !== 200) throw new Error(`not placed: ${placed.status} ${placed.text}`);
  const dates = await api.post(`/claims/${ref}/dates`, { property_id: home, move_in: moveIn, move_out: moveOut });
  if (dates.status !== 200) throw new Error(`dates not set: ${dates.status} ${dates.text}`);
  return dates.body.data as { id: string; move_in_date: string; move_out_date: string; status: string };
}

/**
 * Sets the organisation's sandbox clock to noon of `day`: a move-in is confirmed from the booking's
 * move-in date on, by the clock (DELETE /sandbox/clock goes back to the wall clock).
 */
export async function clockAt(api: Api, day: string) {
  const res = await api.post('/sandbox/clock', { frozen_time: `${day}T12:00:00Z` });
  if (res.status !== 200 && res.status !== 201) throw new Error(`clock not set: ${res.status} ${res.text}`);
}

export const events = async (orgId: string, event: string) =>
  ownerSql()<{ payload: Record<string, any>; created_at: Date }[]>`
    select payload, created_at from app.events where org_id = ${orgId} and event = ${event} order by created_at`;

export const jobsOf = async (orgId: string, kind?: string) =>
  ownerSql()<{ kind: string; status: string; payload: Record<string, any>; attempts: number; last_error: string | null; result: any }[]>`
    select kind, status, payload, attempts, last_error, result from app.jobs
     where org_id = ${orgId} ${kind ? ownerSql()`and kind = ${kind}` : ownerSql()``} order by created_at`;

/**
 * Connects a provider's live payout account (charges and payouts enabled) as an operator does for a
 * local live deployment: the console's `payout connect`, which only local live testing allows.
 */
export async function connectLivePayouts(orgId: string) {
  const before = process.env.LOCAL_LIVE_TESTING;
  process.env.LOCAL_LIVE_TESTING = 'true';
  try {
    return await consoleCommand<{ data: Record<string, unknown> }>('payout', 'connect', '--org', orgId);
  } finally {
    if (before === undefined) delete process.env.LOCAL_LIVE_TESTING;
    else process.env.LOCAL_LIVE_TESTING = before;
  }
}
