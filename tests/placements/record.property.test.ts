// The placement's record is permanent, whatever happens in whatever order: random sequences of the
// placement's commands (re-date, sign, change the home, pay, move in, shorten, cancel, refund) on
// sandbox, with the invariants checked after every step:
// - the request's timeline only grows: every entry once shown stays, word for word (time, type,
//   summary, home and detail);
// - every payment charged what the signed terms of its lease make payable: whole parts (rent,
//   deposits, fees) of its period's charge, whether one payer pays all or each pays a share, and no
//   part of a period paid twice;
// - refunds never exceed what was paid, per payment;
// - at most one confirmed booking per home and night;
// - no step answers 5xx (a step that does not fit the state is a 4xx and changes nothing it should not).
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { chargeParts, partCents } from '../../shared/placements/billing.ts';
import { chargesOf, leaseCharges } from '../../shared/placements/ledger.ts';
import { price, type LeaseTerms } from '../../shared/placements/pricing.ts';
import { claimBody, insertHome, provider, sourced } from '../claims/fixtures.ts';
import { client, createTenant, ownerSql } from '../helpers.ts';
import { clockAt, drainJobs, inDays } from './fixtures.ts';

const runs = Number(process.env.PLACEMENT_PROPERTY_RUNS ?? 200);
const seed = Number(process.env.PLACEMENT_PROPERTY_SEED ?? 20261125);

const step = fc.oneof(
  fc.record({ kind: fc.constant('redate' as const), moveIn: fc.integer({ min: 35, max: 45 }), nights: fc.integer({ min: 60, max: 150 }) }),
  fc.record({ kind: fc.constant('sign' as const), who: fc.constantFrom('household', 'landlord') }),
  fc.record({ kind: fc.constant('change_home' as const), rate: fc.integer({ min: 1000, max: 9000 }), deposit: fc.integer({ min: 0, max: 9000 }) }),
  fc.record({
    kind: fc.constant('pay' as const),
    outcome: fc.constantFrom('succeeded', 'succeeded', 'failed'),
    // Every share due, or one payer's (who may owe nothing now).
    payer: fc.option(fc.constantFrom('carrier', 'tpa', 'policyholder'), { nil: undefined }),
  }),
  fc.record({ kind: fc.constant('move_in' as const) }),
  fc.record({ kind: fc.constant('shorten' as const), nights: fc.integer({ min: 1, max: 40 }) }),
  fc.record({ kind: fc.constant('cancel' as const) }),
  fc.record({ kind: fc.constant('refund' as const), share: fc.constantFrom(0.25, 0.5, 1), approve: fc.boolean() }),
);
type Step = typeof step extends fc.Arbitrary<infer S> ? S : never;

let api: ReturnType<typeof client>;
let carrierOrg: string;
let providerOrg: string;

beforeAll(async () => {
  const tenant = await createTenant('carrier');
  carrierOrg = tenant.orgId;
  // Hundreds of calls a minute on one sandbox key: its limit is raised as the console would.
  await ownerSql()`update app.api_keys set rate_limit_per_minute = 100000 where org_id = ${carrierOrg}`;
  api = client(tenant.sandbox);
  providerOrg = await provider();
});

/** Who pays: one payer for everything, or charges split between two or three payers. */
const payers = fc.constantFrom<Record<string, string>>({}, { deposit_payer: 'policyholder' }, { deposit_payer: 'tpa', fees_payer: 'policyholder' });

/** Where a sequence starts: the contract out for signature, signed, paid, or the household moved in. */
const start = fc.constantFrom('sent' as const, 'signed' as const, 'paid' as const, 'moved_in' as const);

/** A request with one sandbox home placed and dated, its contract out for signature, then brought to `from`. */
async function placed(from: 'sent' | 'signed' | 'paid' | 'moved_in' = 'sent', payersOf: Record<string, string> = {}) {
  // A cleaning fee, so that a fees payer has a part of its own in the first payment.
  const home = await insertHome(providerOrg, { environment: 'sandbox', cleaning_fee_cents: 12_500 });
  const created = await api.post('/claims', claimBody({ household_email: 'family@example.com', adjuster_email: 'adjuster@example.com', ...payersOf }));
  const claim = created.body.data!;
  await sourced(claim.id);
  expect((await api.post(`/claims/${claim.claim_ref}/options`, { property_id: home, action: 'place', approve_budget: true })).status).toBe(200);
  expect((await api.post(`/claims/${claim.claim_ref}/dates`, { property_id: home, move_in: inDays(40), move_out: inDays(130) })).status).toBe(200);
  await drainJobs(carrierOrg);
  const sandbox = `/sandbox/claims/${claim.claim_ref}/homes/${home}`;
  if (from !== 'sent') {
    for (const who of ['household', 'landlord']) expect((await api.post(`${sandbox}/${who}`, { action: 'sign' })).status).toBe(200);
  }
  if (from === 'paid' || from === 'moved_in') expect((await api.post(`${sandbox}/payment`, { outcome: 'succeeded' })).status).toBe(200);
  if (from === 'moved_in') expect(await confirmMoveIn(claim.claim_ref, home, inDays(40))).toBe(200);
  return { ref: claim.claim_ref, claimId: claim.id, home };
}

/**
 * Confirms the move-in on the move-in day: the sandbox clock is set to it for the call and removed
 * after, so the next steps (and the other runs, on the same organisation) keep the wall clock.
 */
async function confirmMoveIn(ref: string, home: string, moveIn: string | undefined): Promise<number> {
  if (moveIn) await clockAt(api, moveIn);
  try {
    return (await api.post(`/claims/${ref}/confirm-move-in`, { property_id: home })).status;
  } finally {
    await api.delete('/sandbox/clock');
  }
}

type Placed = Awaited<ReturnType<typeof placed>>;

/** Runs one step through the API; answers its HTTP status (never a 5xx). */
async function run(p: Placed, s: Step): Promise<number> {
  const { ref, home } = p;
  const lease = async () => (await api.get(`/claims/${ref}/placement`)).body.data?.homes[0]?.lease ?? null;
  switch (s.kind) {
    case 'redate':
      return (await api.post(`/claims/${ref}/dates`, { property_id: home, move_in: inDays(s.moveIn), move_out: inDays(s.moveIn + s.nights) })).status;
    case 'sign': {
      await drainJobs(carrierOrg);
      return (await api.post(`/sandbox/claims/${ref}/homes/${home}/${s.who}`, { action: 'sign' })).status;
    }
    case 'change_home':
      // As the provider's PATCH would: rates, tiers and deposit of the home change after the fact.
      await ownerSql()`
        update app.properties set monthly_rate_cents = ${s.rate * 100}, rent_1_3_months_cents = ${s.rate * 90},
               rent_4_6_months_cents = ${s.rate * 80}, security_deposit_cents = ${s.deposit * 100} where id = ${home}`;
      return 200;
    case 'pay':
      return (await api.post(`/sandbox/claims/${ref}/homes/${home}/payment`, { outcome: s.outcome, ...(s.payer ? { payer: s.payer } : {}) })).status;
    case 'move_in':
      return confirmMoveIn(ref, home, (await lease())?.move_in_date);
    case 'shorten': {
      const current = await lease();
      if (!current) return 409;
      const end = current.shortened_move_out_date ?? current.move_out_date;
      const earlier = new Date(Date.parse(`${end}T00:00:00Z`) - s.nights * 86_400_000).toISOString().slice(0, 10);
      return (await api.post(`/claims/${ref}/dates`, { property_id: home, move_in: current.move_in_date, move_out: earlier })).status;
    }
    case 'cancel':
      return (await api.post(`/claims/${ref}/cancel-booking`, { property_id: home, force: true })).status;
    case 'refund': {
      const payments = (await api.get(`/claims/${ref}/placement`)).body.data?.homes[0]?.payments ?? [];
      const settled = payments.find((m) => m.status === 'succeeded');
      const left = settled ? Math.round(settled.amount * 100) - Math.round(settled.refunded_amount * 100) : 0;
      const amount = Math.max(1, Math.floor(left * s.share)) / 100;
      const asked = await api.post(`/claims/${ref}/refund-request`, { property_id: home, ...(settled ? { payment_id: settled.id, amount } : {}) });
      if (asked.status !== 202) return asked.status;
      const answered = await api.post(`/sandbox/claims/${ref}/homes/${home}/landlord`, { action: s.approve ? 'approve_refund' : 'decline_refund' });
      await drainJobs(carrierOrg);
      return answered.status;
    }
  }
}

/** The whole entry: a later step may add entries, never change one. */
const entryKey = (e: { at: string; type: string; summary: string; property_id?: string; detail: unknown }) =>
  JSON.stringify([e.at, e.type, e.summary, e.property_id ?? null, e.detail]);

/** The invariants, checked against the API and the database as they stand. */
async function check(p: Placed, before: string[]): Promise<string[]> {
  // The timeline only grows.
  const timeline = (await api.get(`/claims/${p.ref}/timeline`)).body.data ?? [];
  const now = timeline.map(entryKey);
  const remaining = [...now];
  for (const key of before) {
    const at = remaining.indexOf(key);
    expect(at, `timeline entry ${key} disappeared`).toBeGreaterThanOrEqual(0);
    remaining.splice(at, 1);
  }

  // Each payment charged whole parts of what its lease's signed terms make payable for its period.
  const payments = await ownerSql()<{
    gross_cents: string; refunded_cents: string; rent_cents: string; deposit_cents: string; fees_cents: string; status: string; duplicate_of: string | null;
    period_start: string; charge_type: string; terms: LeaseTerms | null; move_in_date: string; move_out_date: string;
  }[]>`
    select p.gross_cents, p.refunded_cents, p.rent_cents, p.deposit_cents, p.fees_cents, p.status, p.duplicate_of, p.period_start, p.charge_type,
           l.terms, l.move_in_date, l.move_out_date
      from app.payments p join app.lease_agreements l on l.id = p.lease_agreement_id
     where p.claim_option_id = (select id from app.claim_options where claim_id = ${p.claimId} and property_id = ${p.home})`;
  const settledParts = new Map<string, number>();
  for (const payment of payments) {
    expect(payment.terms, 'a lease issued now records its terms').not.toBeNull();
    const terms = payment.terms!;
    const prices = price(terms.home, { target_move_in: payment.move_in_date, est_length_months: 1, has_pets: terms.request.has_pets, max_budget_cents: null, ale_limit_cents: null },
      { move_in: payment.move_in_date, move_out: payment.move_out_date });
    // The charge its signing posted to the ledger for that period.
    const charge = chargesOf(leaseCharges('lease', prices, { moveIn: payment.move_in_date, moveOut: payment.move_out_date })).find((c) => c.periodStart === payment.period_start)!;
    expect(Number(payment.gross_cents), 'a payment charges something').toBeGreaterThan(0);
    for (const part of chargeParts) {
      const cents = Number(payment[`${part}_cents`]);
      if (cents === 0) continue;
      expect(cents, `the ${part} part charged what the signed terms make payable`).toBe(partCents(charge, part));
      if (['succeeded', 'refunded'].includes(payment.status) && !payment.duplicate_of) {
        const key = `${payment.period_start}|${part}`;
        settledParts.set(key, (settledParts.get(key) ?? 0) + 1);
      }
    }
    // Refunds never exceed what was paid.
    expect(Number(payment.refunded_cents)).toBeLessThanOrEqual(Number(payment.gross_cents));
  }
  expect([...settledParts].filter(([, n]) => n > 1), 'a part of a period paid twice').toEqual([]);
  const [refunds] = await ownerSql()<{ over: number }[]>`
    select count(*)::integer as over from (
      select r.payment_id from app.refund_requests r join app.payments m on m.id = r.payment_id
       where r.claim_id = ${p.claimId} and r.status in ('approved', 'refunded')
       group by r.payment_id, m.gross_cents having sum(r.amount_cents) > m.gross_cents) x`;
  expect(refunds.over, 'refunds approved beyond a payment').toBe(0);

  // At most one confirmed booking per home and night.
  const [overlaps] = await ownerSql()<{ n: number }[]>`
    select count(*)::integer as n from app.bookings a join app.bookings b
      on a.property_id = b.property_id and a.id < b.id and a.booking_status = 'confirmed' and b.booking_status = 'confirmed'
     and daterange(a.check_in, a.check_out) && daterange(b.check_in, b.check_out)
     where a.property_id = ${p.home}`;
  expect(overlaps.n, 'two confirmed bookings of one home on one night').toBe(0);
  return now;
}

describe('the placement record under random sequences of commands', () => {
  it(`keeps its invariants over ${runs} sequences (seed ${seed})`, { timeout: 600_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(start, payers, fc.array(step, { minLength: 3, maxLength: 9 }), async (from, payersOf, steps) => {
        const p = await placed(from, payersOf);
        let seen = await check(p, []);
        for (const s of steps) {
          const status = await run(p, s);
          expect(status, `${s.kind} answered ${status}`).toBeLessThan(500);
          seen = await check(p, seen);
        }
      }),
      { numRuns: runs, seed, endOnFailure: true },
    );
  });
});
