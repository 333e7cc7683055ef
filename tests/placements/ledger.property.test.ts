// Every night is paid once, whatever happens to the stay: random sequences of a stay's changes on
// the sandbox clock (pay, a failed payment, the clock moved, move-in, shorten, extend, an extension
// declined, a cancellation before move-in), then the stay closed out and paid, checked after every
// step against a reference model of the documented rules written apart from the service's billing:
// - what the statement charges is the rent of the stay's nights as they now stand, each billing
//   period's first n nights at round(monthly * n / days of the period), plus the deposit (nothing
//   after a cancellation before move-in);
// - what was paid, less what is owed back and what came back, never exceeds what is charged, and
//   equals it once the stay is over and everything due is paid;
// - refunds never exceed payments; statement and timeline entries once shown stay word for word;
// - no step answers 5xx, and a step the stay does not allow is refused and changes nothing.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { claimBody, insertHome, provider, sourced } from '../claims/fixtures.ts';
import { client, createTenant, ownerSql } from '../helpers.ts';
import { clockAt, drainJobs } from './fixtures.ts';

const runs = Number(process.env.LEDGER_PROPERTY_RUNS ?? 15);
const seed = Number(process.env.LEDGER_PROPERTY_SEED ?? 20261125);

// The reference model: calendar arithmetic and the billing rules as the documentation states them.

const dayMs = 86_400_000;
const plus = (iso: string, days: number) => new Date(Date.parse(`${iso}T00:00:00Z`) + days * dayMs).toISOString().slice(0, 10);
const nightsFrom = (from: string, to: string) => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / dayMs);

/** The same day of the month `months` after `iso`, on the month's last day when it has no such day. */
function monthsAfter(iso: string, months: number): string {
  const [y, m, d] = iso.split('-').map(Number);
  const daysInMonth = new Date(Date.UTC(y, m - 1 + months + 1, 0)).getUTCDate();
  return new Date(Date.UTC(y, m - 1 + months, Math.min(d, daysInMonth))).toISOString().slice(0, 10);
}

/**
 * The rent of the nights [moveIn, moveOut) at a flat monthly amount: billing period k runs from
 * move-in + k months to the day before move-in + k + 1 months, and its first n nights of D cost
 * round(monthly * n / D). The first period is billed whole, which is the same here: every stay the
 * generator makes holds at least 32 nights, more than any month.
 */
function rentCents(monthlyCents: number, moveIn: string, moveOut: string): number {
  expect(nightsFrom(moveIn, moveOut), 'the model prices stays longer than a month').toBeGreaterThanOrEqual(32);
  let total = 0;
  for (let k = 0; monthsAfter(moveIn, k) < moveOut; k++) {
    const start = monthsAfter(moveIn, k);
    const days = nightsFrom(start, monthsAfter(moveIn, k + 1));
    total += Math.round((monthlyCents * Math.min(days, nightsFrom(start, moveOut))) / days);
  }
  return total;
}

/** The stay as the model knows it. `today` is the sandbox clock's day (the clock stands at its noon). */
interface Model {
  monthlyCents: number;
  depositCents: number;
  moveIn: string;
  moveOut: string;
  today: string;
  movedIn: boolean;
  cancelled: boolean;
}

/** What the stay charges as it now stands: its nights and the deposit, or nothing once cancelled before move-in. */
const expectedCharge = (m: Model) => (m.cancelled ? 0 : rentCents(m.monthlyCents, m.moveIn, m.moveOut) + m.depositCents);

// The commands. Their numbers are read against the stay as it stands when they run (see run below).

const step = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('pay' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('fail_payment' as const) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('advance' as const), days: fc.integer({ min: 1, max: 40 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('move_in' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('shorten' as const), pick: fc.nat({ max: 1000 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('extend' as const), nights: fc.integer({ min: 1, max: 60 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('decline_extension' as const), nights: fc.integer({ min: 1, max: 60 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const) }) },
  // The provider changes the home's rate after signing: what the stay charges never follows it.
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('change_rate' as const), monthlyCents: fc.integer({ min: 100_000, max: 900_000 }) }) },
);
type Step = typeof step extends fc.Arbitrary<infer S> ? S : never;

/**
 * Where a stay starts: days from the clock's first day to move-in, nights booked, the monthly rate
 * (any cents), a declined card before the first payment, and most often the household moved in (a
 * stay is shortened only then).
 */
const booked = fc.record({
  lead: fc.integer({ min: 1, max: 15 }),
  nights: fc.integer({ min: 35, max: 120 }),
  monthlyCents: fc.integer({ min: 100_000, max: 900_000 }),
  failFirst: fc.boolean(),
  movedIn: fc.constantFrom(true, true, false),
  // One payer for everything, or the charges split between two or three payers (each share its own payment).
  payers: fc.constantFrom<Record<string, string>>({}, { deposit_payer: 'policyholder' }, { deposit_payer: 'tpa', fees_payer: 'policyholder' }),
});
type Booked = typeof booked extends fc.Arbitrary<infer B> ? B : never;

let providerOrg: string;

beforeAll(async () => {
  providerOrg = await provider();
});

type Api = ReturnType<typeof client>;

interface Stay {
  api: Api;
  orgId: string;
  ref: string;
  home: string;
}

/**
 * A new organisation (its own sandbox clock, at noon tomorrow) with a request placed on a flat-rate
 * home (monthly rate only: no tier rates, pets, utilities or one-off fees; the fixture's deposit),
 * dated, signed by both and paid.
 */
async function bookedStay(b: Booked): Promise<{ stay: Stay; model: Model }> {
  const tenant = await createTenant('carrier');
  const api = client(tenant.sandbox);
  const today = plus(new Date().toISOString().slice(0, 10), 1);
  await clockAt(api, today);
  const home = await insertHome(providerOrg, { environment: 'sandbox', monthly_rate_cents: b.monthlyCents });
  const [{ deposit }] = await ownerSql()<{ deposit: string }[]>`select security_deposit_cents as deposit from app.properties where id = ${home}`;
  const moveIn = plus(today, b.lead);
  const moveOut = plus(moveIn, b.nights);
  const created = await api.post('/claims', claimBody({ target_move_in: moveIn, est_length_months: 3, ...b.payers }));
  expect(created.status, created.text).toBe(201);
  const claim = created.body.data!;
  await sourced(claim.id);
  const stay = { api, orgId: tenant.orgId, ref: claim.claim_ref, home };
  expect((await api.post(`/claims/${stay.ref}/options`, { property_id: home, action: 'place', approve_budget: true })).status).toBe(200);
  const dated = await api.post(`/claims/${stay.ref}/dates`, { property_id: home, move_in: moveIn, move_out: moveOut });
  expect(dated.status, dated.text).toBe(200);
  await drainJobs(stay.orgId);
  await signBoth(stay);
  if (b.failFirst) expect((await payment(stay, 'failed')).status).toBe(200);
  expect(await payDue(stay)).toBe(1);
  const model = { monthlyCents: b.monthlyCents, depositCents: Number(deposit), moveIn, moveOut, today, movedIn: false, cancelled: false };
  if (b.movedIn) {
    await clockAt(api, moveIn);
    model.today = moveIn;
    expect((await api.post(`/claims/${stay.ref}/confirm-move-in`, { property_id: home })).status).toBe(200);
    model.movedIn = true;
  }
  return { stay, model };
}

const helper = (s: Stay, who: 'household' | 'landlord') => `/sandbox/claims/${s.ref}/homes/${s.home}/${who}`;

const payment = (s: Stay, outcome: 'succeeded' | 'failed') => s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/payment`, { outcome });

async function signBoth(s: Stay) {
  for (const who of ['household', 'landlord'] as const) {
    const res = await s.api.post(helper(s, who), { action: 'sign' });
    expect(res.status, `${who} signs: ${res.text}`).toBe(200);
  }
}

/** Pays everything due now, charge after charge; answers how many payments that took. */
async function payDue(s: Stay): Promise<number> {
  for (let paid = 0; ; paid++) {
    const res = await payment(s, 'succeeded');
    if (res.status === 409 && res.body.error?.code === 'nothing_due') return paid;
    expect(res.status, res.text).toBe(200);
  }
}

/** Runs one step through the API and moves the model as the documented rules say the step moves the stay. */
async function run(s: Stay, m: Model, st: Step): Promise<void> {
  const refused = (status: number, what: string) => expect([400, 404, 409, 422], `${what} answered ${status}`).toContain(status);
  switch (st.kind) {
    case 'pay': {
      if (m.cancelled) return refused((await payment(s, 'succeeded')).status, 'a payment after cancellation');
      await payDue(s);
      return;
    }
    case 'fail_payment': {
      // Declined by the card: recorded as failed when something is due, nothing due otherwise; either way nothing changes.
      const res = await payment(s, 'failed');
      if (res.status !== 200) refused(res.status, 'a failed payment');
      return;
    }
    case 'advance': {
      // Up to the last night: the stay ends in the final phase only.
      const to = [plus(m.today, st.days), plus(m.moveOut, -1)].sort()[0];
      if (to <= m.today) return;
      await clockAt(s.api, to);
      m.today = to;
      return;
    }
    case 'move_in': {
      if (m.movedIn) return;
      const res = await s.api.post(`/claims/${s.ref}/confirm-move-in`, { property_id: s.home });
      if (m.cancelled) return refused(res.status, 'a move-in after cancellation');
      // The move-in day counts once it has begun somewhere (UTC+14): from the day before it, at the clock's noon.
      if (m.moveIn > plus(m.today, 1)) {
        expect(res.status, res.text).toBe(409);
        expect(res.body.error?.code).toBe('move_in_not_yet');
        return;
      }
      expect(res.status, res.text).toBe(200);
      m.movedIn = true;
      return;
    }
    case 'shorten': {
      // Never into the first month, never in the past by the clock, always earlier than the stay's move-out.
      const lo = [plus(m.moveIn, 32), plus(m.today, 1)].sort()[1];
      const span = nightsFrom(lo, m.moveOut);
      if (span < 1) return;
      const to = plus(lo, st.pick % span);
      const res = await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: m.moveIn, move_out: to });
      // Only a stay moved in is shortened; before that the signed lease refuses new dates.
      if (!m.movedIn || m.cancelled) return refused(res.status, 'a shortening before move-in');
      expect(res.status, res.text).toBe(200);
      m.moveOut = to;
      return;
    }
    case 'extend':
    case 'decline_extension': {
      const to = plus(m.moveOut, st.nights);
      const res = await s.api.post(`/claims/${s.ref}/extensions`, { property_id: s.home, move_out: to });
      if (m.cancelled) return refused(res.status, 'an extension after cancellation');
      expect(res.status, res.text).toBe(201);
      await drainJobs(s.orgId);
      if (st.kind === 'decline_extension') {
        const declined = await s.api.post(helper(s, 'landlord'), { action: 'decline_extension' });
        expect(declined.status, declined.text).toBe(200);
        return;
      }
      await signBoth(s);
      await payDue(s);
      m.moveOut = to;
      return;
    }
    case 'change_rate': {
      await ownerSql()`update app.properties set monthly_rate_cents = ${st.monthlyCents} where id = ${s.home}`;
      return;
    }
    case 'cancel': {
      if (m.movedIn || m.cancelled) return;
      const res = await s.api.post(`/claims/${s.ref}/cancel-booking`, { property_id: s.home, force: true });
      expect(res.status, res.text).toBe(200);
      m.cancelled = true;
      return;
    }
  }
}

interface Totals { charged: number; paid: number; refunded: number; due_now: number; refund_due: number }

/** What was shown before: statement entries by id (all but who pays and what paid them, read beside them) and timeline entries. */
interface Seen { entries: Map<string, string>; timeline: string[] }

const cents = (major: number) => Math.round(major * 100);

/** The invariants, against the statement and the timeline as they stand; answers what they show now. */
async function check(s: Stay, m: Model, before: Seen, after: string): Promise<{ seen: Seen; totals: Totals }> {
  const statement = await s.api.get(`/claims/${s.ref}/statement?property_id=${s.home}`);
  expect(statement.status, statement.text).toBe(200);
  const { entries, totals } = statement.body.data as { entries: Record<string, unknown>[]; totals: Totals };
  const t = { charged: cents(totals.charged), paid: cents(totals.paid), refunded: cents(totals.refunded), due_now: cents(totals.due_now), refund_due: cents(totals.refund_due) };

  expect(t.charged, `after ${after}: charged for ${m.moveIn} to ${m.moveOut}`).toBe(expectedCharge(m));
  expect(t.paid - t.refund_due - t.refunded, `after ${after}: paid net of what is owed back, beyond what is charged`).toBeLessThanOrEqual(t.charged);
  expect(t.refunded, `after ${after}: refunded beyond what was paid`).toBeLessThanOrEqual(t.paid);

  const now = new Map(entries.map(({ settled_by: _settled, payer: _payer, ...entry }) => [entry.id as string, JSON.stringify(entry)]));
  for (const [id, entry] of before.entries) expect(now.get(id), `after ${after}: a statement entry changed or went`).toBe(entry);

  const timeline = ((await s.api.get(`/claims/${s.ref}/timeline`)).body.data ?? []) as { at: string; type: string; summary: string; property_id?: string; detail: unknown }[];
  const shown = timeline.map((e) => JSON.stringify([e.at, e.type, e.summary, e.property_id ?? null, e.detail]));
  const rest = [...shown];
  for (const entry of before.timeline) {
    const at = rest.indexOf(entry);
    expect(at, `after ${after}: timeline entry ${entry} changed or went`).toBeGreaterThanOrEqual(0);
    rest.splice(at, 1);
  }
  return { seen: { entries: now, timeline: shown }, totals: t };
}

describe('the ledger of a stay under random sequences of changes', () => {
  it(`charges every night of the stay once, as the documented rules price it, over ${runs} sequences (seed ${seed})`, { timeout: 600_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(booked, fc.array(step, { minLength: 2, maxLength: 10 }), async (b, steps) => {
        const { stay, model } = await bookedStay(b);
        let { seen } = await check(stay, model, { entries: new Map(), timeline: [] }, 'booking');
        for (const st of steps) {
          await run(stay, model, st);
          ({ seen } = await check(stay, model, seen, JSON.stringify(st)));
        }
        // The end: the clock past the move-out, the closeout run, and everything due paid.
        model.today = plus(model.moveOut, 1);
        await clockAt(stay.api, model.today);
        await drainJobs(stay.orgId);
        if (!model.cancelled) await payDue(stay);
        const { totals } = await check(stay, model, seen, 'the closeout');
        expect(totals.due_now, 'due once the stay is over and paid').toBe(0);
        expect(totals.paid - totals.refund_due - totals.refunded, 'every night paid once, net of what is owed back').toBe(totals.charged);
      }),
      { numRuns: runs, seed, endOnFailure: true },
    );
  });
});
