// Reconciliation: stay by stay, the ledger against the processor's record of the same money
// (staff.ledger_differences, the console's `ledger reconcile`). Stays driven through the API agree
// with it; a difference put in on purpose is listed with its amount.
import { describe, expect, it } from 'vitest';
import type { LedgerDifference } from '../../scripts/console/ledger.ts';
import { insertHome, openClaim } from '../claims/fixtures.ts';
import { runConsole } from '../foundation/run-console.ts';
import { consoleCommand, ownerSql } from '../helpers.ts';
import { clockAt, drainJobs, inDays, scene, type Api } from './fixtures.ts';

type Scene = Awaited<ReturnType<typeof scene>>;
interface Stay { ref: string; home: string }
interface Reconciled { data: LedgerDifference[]; count: number; differences: number; in_flight: number; by_kind: Record<string, number> }

const day = (from: string, days: number) => new Date(Date.parse(`${from}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

async function ok(res: Promise<{ status: number; text: string; body: any }>, status = 200) {
  const done = await res;
  expect(done.status, done.text).toBe(status);
  return done.body;
}

/** A home at 3,000 a month with a deposit and a cleaning fee, placed on a new request, dated and signed by both. */
async function signedStay(s: Scene, moveIn: string, nights: number, claim: Record<string, unknown> = {}): Promise<Stay> {
  const home = await insertHome(s.providerOrg, { environment: 'sandbox', monthly_rate_cents: 300_000, cleaning_fee_cents: 15_000 });
  const request = await openClaim(s.api, { target_move_in: moveIn, est_length_months: 3, ...claim });
  await ok(s.api.post(`/claims/${request.claim_ref}/options`, { property_id: home, action: 'place', approve_budget: true }));
  await ok(s.api.post(`/claims/${request.claim_ref}/dates`, { property_id: home, move_in: moveIn, move_out: day(moveIn, nights) }));
  await drainJobs(s.c.orgId);
  for (const who of ['household', 'landlord']) await ok(s.api.post(`/sandbox/claims/${request.claim_ref}/homes/${home}/${who}`, { action: 'sign' }));
  return { ref: request.claim_ref, home };
}

/** Pays everything due now, every payer's share. */
async function payDue(api: Api, stay: Stay) {
  for (;;) {
    const res = await api.post(`/sandbox/claims/${stay.ref}/homes/${stay.home}/payment`, { outcome: 'succeeded' });
    if (res.status === 409 && res.body.error?.code === 'nothing_due') return;
    expect(res.status, res.text).toBe(200);
  }
}

/** Asks a refund and has the landlord approve it; `issue` runs the refund job. */
async function refund(s: Scene, stay: Stay, body: Record<string, unknown>, issue = true) {
  const asked = await ok(s.api.post(`/claims/${stay.ref}/refund-request`, { property_id: stay.home, ...body }), 202);
  await ok(s.api.post(`/sandbox/claims/${stay.ref}/homes/${stay.home}/landlord`, { action: 'approve_refund' }));
  if (issue) await drainJobs(s.c.orgId);
  return asked.data as { refund_request_id: string; payment_id: string; amount_cents: number };
}

const reconcile = (...argv: string[]) => consoleCommand<Reconciled>('ledger', 'reconcile', ...argv);

const paymentsOf = (stay: Stay) => ownerSql()<{ id: string; gross_cents: number; refunded_cents: number; platform_fee_cents: number; rent_cents: number }[]>`
  select p.id, p.gross_cents::float8 as gross_cents, p.refunded_cents::float8 as refunded_cents, p.platform_fee_cents::float8 as platform_fee_cents,
         p.rent_cents::float8 as rent_cents
    from app.payments p join app.claims c on c.id = p.claim_id
   where c.claim_ref = ${stay.ref} and p.status in ('succeeded', 'refunded') order by p.paid_at, p.id`;

describe('ledger reconcile', () => {
  it('stays paid, shortened, refunded (owed back, a deposit, goodwill) and split between payers: nothing to list but a refund in flight', async () => {
    const s = await scene();
    const moveIn = inDays(40);
    const split = await signedStay(s, moveIn, 90, { rent_payer: 'carrier', deposit_payer: 'policyholder', fees_payer: 'policyholder' });
    const shortened = await signedStay(s, moveIn, 100);
    const inFlight = await signedStay(s, moveIn, 60);
    for (const stay of [split, shortened, inFlight]) await payDue(s.api, stay);
    expect((await paymentsOf(split)).length).toBe(2);
    // Moved in; the second month begins and is paid on its first day.
    await clockAt(s.api, moveIn);
    for (const stay of [split, shortened, inFlight]) await ok(s.api.post(`/claims/${stay.ref}/confirm-move-in`, { property_id: stay.home }));
    await clockAt(s.api, day(moveIn, 32));
    for (const stay of [split, shortened, inFlight]) await payDue(s.api, stay);

    // Shortened into the second month: what is owed back is refunded, then the deposit, then a goodwill refund.
    await ok(s.api.post(`/claims/${shortened.ref}/dates`, { property_id: shortened.home, move_in: moveIn, move_out: day(moveIn, 45) }));
    await refund(s, shortened, {});
    await refund(s, shortened, { purpose: 'deposit' });
    await refund(s, shortened, { amount: 25, goodwill: true });
    // The split stay's deposit back to the policyholder that paid it.
    await refund(s, split, { purpose: 'deposit' });
    expect((await paymentsOf(shortened)).some((p) => p.refunded_cents > 0)).toBe(true);

    // Approved, not yet issued: in flight, not a difference.
    const flying = await refund(s, inFlight, { amount: 100, goodwill: true }, false);
    let found = await reconcile('--org', s.c.orgId, '--env', 'sandbox');
    expect(found.data.filter((d) => !d.in_flight), JSON.stringify(found.data, null, 1)).toEqual([]);
    expect(found).toMatchObject({ differences: 0, in_flight: 1, count: 1 });
    expect(found.data[0]).toMatchObject({
      kind: 'refund_in_flight', reference: inFlight.ref, refund_request_id: flying.refund_request_id, payment_id: flying.payment_id,
      ledger_cents: 10_000, processor_cents: 0, difference_cents: 0, detail: expect.stringContaining('refund job is pending'),
    });
    // The landlord's organisation reads the same stays.
    expect((await reconcile('--org', s.providerOrg)).count).toBe(1);

    await drainJobs(s.c.orgId);
    found = await reconcile('--org', s.c.orgId, '--env', 'sandbox');
    expect(found).toMatchObject({ data: [], count: 0, differences: 0, in_flight: 0 });
  });

  it('lists each difference put in on purpose with its amount: a refund made at the processor, a payment the ledger lacks, a fee off by a cent, entries on a failed payment', async () => {
    const s = await scene();
    const moveIn = inDays(40);
    const refunded = await signedStay(s, moveIn, 100);
    const other = await signedStay(s, moveIn, 60);
    const failed = await signedStay(s, moveIn, 45);
    for (const stay of [refunded, other, failed]) await payDue(s.api, stay);
    const issued = await refund(s, refunded, { amount: 40, goodwill: true });
    expect((await reconcile('--org', s.c.orgId)).count).toBe(0);

    const sql = ownerSql();
    // 25.00 refunded at the processor outside the service (its charge.refunded raised refunded_cents).
    const [onProcessor] = await paymentsOf(refunded);
    expect(onProcessor.id).toBe(issued.payment_id);
    await sql`update app.payments set refunded_cents = refunded_cents + 2500 where id = ${onProcessor.id}`;
    // A settled payment recorded without its entries: a copy of the other stay's, for a later period.
    const [copied] = await paymentsOf(other);
    const [planted] = await sql<{ id: string }[]>`
      insert into app.payments (org_id, environment, property_id, carrier_org_id, claim_id, claim_option_id, lease_agreement_id, charge_type, status,
                                rent_cents, deposit_cents, fees_cents, platform_fee_cents, processing_fee_cents, currency, paid_at,
                                period_start, period_end, payer, provider_ref)
      select org_id, environment, property_id, carrier_org_id, claim_id, claim_option_id, lease_agreement_id, 'rent', 'succeeded',
             rent_cents, 0, 0, platform_fee_cents, processing_fee_cents, currency, now(),
             period_start + 400, period_end + 400, payer, 'sandbox_planted_' || id
        from app.payments where id = ${copied.id}
      returning id`;
    // The platform fee the processor took, a cent short.
    await sql`update app.payments set platform_fee_cents = platform_fee_cents - 1 where id = ${copied.id}`;
    // The processor says the third stay's payment failed after all: its entries stand on nothing.
    const [unsettled] = await paymentsOf(failed);
    await sql`update app.payments set status = 'failed', paid_at = null, failure_reason = 'card_declined' where id = ${unsettled.id}`;

    const found = await reconcile('--org', s.c.orgId, '--env', 'sandbox');
    const brief = found.data.map((d) => ({ kind: d.kind, reference: d.reference, payment_id: d.payment_id, part: d.part, difference_cents: d.difference_cents }));
    expect(brief).toEqual(expect.arrayContaining([
      { kind: 'refund_differs', reference: refunded.ref, payment_id: onProcessor.id, part: null, difference_cents: 2500 },
      { kind: 'payment_not_in_ledger', reference: other.ref, payment_id: planted.id, part: null, difference_cents: copied.rent_cents },
      { kind: 'platform_fee_differs', reference: other.ref, payment_id: copied.id, part: 'rent', difference_cents: -1 },
      { kind: 'payment_not_settled', reference: failed.ref, payment_id: unsettled.id, part: null, difference_cents: -unsettled.gross_cents },
    ]));
    expect(found).toMatchObject({ differences: 4, in_flight: 0, count: 4 });
    expect(found.data.find((d) => d.kind === 'refund_differs')).toMatchObject({
      ledger_cents: issued.amount_cents, processor_cents: issued.amount_cents + 2500, placement_id: expect.any(String), environment: 'sandbox',
    });
    expect(found.data.find((d) => d.kind === 'platform_fee_differs')).toMatchObject({
      ledger_cents: Math.round(copied.rent_cents * 0.08), processor_cents: copied.platform_fee_cents - 1,
    });

    // Filters: the kind, the environment; Studio's view holds the same rows.
    expect((await reconcile('--org', s.c.orgId, '--kind', 'refund_differs')).data.map((d) => d.payment_id)).toEqual([onProcessor.id]);
    expect((await reconcile('--org', s.c.orgId, '--env', 'live')).count).toBe(0);
    const [{ n }] = await sql<{ n: number }[]>`select count(*)::integer as n from staff.ledger_differences where org_id = ${s.c.orgId}`;
    expect(n).toBe(4);

    // As a listing, the console exits 0 and prints the differences.
    const printed = await runConsole(['ledger', 'reconcile', '--org', s.c.orgId]);
    expect(printed.code, printed.stderr).toBe(0);
    expect(JSON.parse(printed.stdout)).toMatchObject({ count: 4, differences: 4 });
    const refused = await runConsole(['ledger', 'reconcile', '--kind', 'everything']);
    expect(refused.code).not.toBe(0);
    expect(JSON.parse(refused.stderr).error.code).toBe('invalid_option');
  }, 90_000);

  it('lists a part the processor says was paid beyond its entries, and the entries of a refund request the ledger says was never approved', async () => {
    const s = await scene();
    const stay = await signedStay(s, inDays(40), 60);
    await payDue(s.api, stay);
    const issued = await refund(s, stay, { amount: 40, goodwill: true });
    const [paid] = await paymentsOf(stay);
    const sql = ownerSql();
    await sql`update app.payments set rent_cents = rent_cents + 100 where id = ${issued.payment_id}`;
    // A request's life only grows and a refunded one is never declined: only with the history's
    // triggers off can a step say it was, as a ledger out of step with its requests would read.
    await sql.begin(async (tx) => {
      await tx`set local session_replication_role = replica`;
      await tx`
        insert into app.refund_request_changes (request_id, seq, org_id, environment, provider_org_id, status, moved_by)
        select request_id, max(seq) + 1, org_id, environment, provider_org_id, 'declined', 'landlord'
          from app.refund_request_changes where request_id = ${issued.refund_request_id}
         group by request_id, org_id, environment, provider_org_id`;
    });
    const found = await reconcile('--org', s.c.orgId);
    expect(found.data.map((d) => [d.kind, d.part, d.ledger_cents, d.processor_cents, d.difference_cents])).toEqual([
      // The processor says 1.00 more rent was paid than the entries paid.
      ['payment_part_differs', 'rent', paid.rent_cents, paid.rent_cents + 100, 100],
      // It still says 40.00 came back, and the ledger issued no refund: its request was never approved.
      ['refund_differs', null, 0, 4000, 4000],
      ['refund_not_approved', null, 4000, 0, -4000],
    ]);
    expect(found.data.every((d) => d.payment_id === issued.payment_id && d.reference === stay.ref)).toBe(true);
  });
});
