// Every night is paid once, by whoever pays its part, whatever happens to the stay: random sequences
// of a stay's changes on the sandbox clock, checked after every step against a reference model of the
// documented rules written apart from the service's billing (LEDGER_PROPERTY_SHRINK set shrinks a
// failure to its smallest case, LEDGER_PROPERTY_PATH with the seed replays the case a failure names
// by its path).
//
// What is drawn: one payer or rent, deposits and fees split between two or three payers; a home with
// any monthly rate, utilities or not, pets or not (pet rent, pet fee, pet deposit), cleaning and
// application fees; dates set and replaced before signing (the rate changed in between); the first
// payment made or not; then pay (sometimes clearing twice: a duplicate charge, refunded
// automatically), a failed payment, the clock moved, move-in, shorten (before an extension not in
// effect yet, which withdraws it, or inside one in effect), extend (paid at once, signed and left unpaid, left unsigned, or declined;
// also after refunds, taking back refunded nights), an open extension signed or paid later, a
// cancellation in every state (unpaid, paid, moved in, with an extension open, with a refund
// pending, after the closeout), the provider's rate changed after signing, and refunds: with the
// defaults, of part or all of what is owed back on a named payment, asked beyond what is owed
// (422), of the deposits, with goodwill; approved, declined, or left pending while the stay changes
// and approved later (returning only what is owed then, or refused and declined when nothing is);
// issued at once, or refused by the processor until its job is abandoned, then retried by an operator;
// then the closeout (an unpaid extension lapses), everything due paid, more refunds, and sometimes
// the next stay booked in the same home.
//
// What is checked, after every step:
// - per payer: what was paid, what came back, what is charged, what is owed back (refund_due) and
//   what is due now equal the model's; what the statement charges is the price of the stay's nights
//   as they now stand, its fees and deposits, less deposits returned and goodwill given;
// - the payment helper charges exactly the statement's due_now, payer by payer, for the charge the
//   model says is due; a refund asked with the defaults asks what its payer is owed back (up to what
//   is left of the payment it names);
// - a refused step and a declined or pending refund move no total;
// - statement and timeline entries once shown stay word for word, also once the next stay is booked;
// - re-dating leaves every earlier version in the history as superseded and signs none of them;
// - no step answers 5xx;
// and at the end of each sequence, paid to its end, each payer has paid net what booking the final
// dates directly charges it (the nights kept, the fees and deposits), less deposits returned and
// goodwill given.
import fc from 'fast-check';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { claimBody, insertHome, provider, sourced } from '../claims/fixtures.ts';
import { client, consoleCommand, createTenant, ownerSql } from '../helpers.ts';
import { sandboxPayments } from '../../shared/placements/ports/sandbox.ts';
import { clockAt, drainJobs } from './fixtures.ts';

const runs = Number(process.env.LEDGER_PROPERTY_RUNS ?? 20);
const seed = Number(process.env.LEDGER_PROPERTY_SEED ?? 20261125);
/** LEDGER_PROPERTY_STATS set: how many sequences and steps ran, and of which kinds, printed at the end. */
const stats = new Map<string, number>();
const count = (what: string) => stats.set(what, (stats.get(what) ?? 0) + 1);

// ---------------------------------------------------------------------------------------------
// The reference model: calendar arithmetic and the billing rules as the documentation states them
// (docs/placements.md: the pay page, the ledger and the statement, extending a stay, refunds).
// ---------------------------------------------------------------------------------------------

const dayMs = 86_400_000;
const plus = (iso: string, days: number) => new Date(Date.parse(`${iso}T00:00:00Z`) + days * dayMs).toISOString().slice(0, 10);
const nightsFrom = (from: string, to: string) => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / dayMs);
const later = (a: string, b: string) => (a > b ? a : b);
const earlier = (a: string, b: string) => (a < b ? a : b);

/** The same day of the month `months` after `iso`, on the month's last day when it has no such day. */
function monthsAfter(iso: string, months: number): string {
  const [y, m, d] = iso.split('-').map(Number);
  const daysInMonth = new Date(Date.UTC(y, m - 1 + months + 1, 0)).getUTCDate();
  return new Date(Date.UTC(y, m - 1 + months, Math.min(d, daysInMonth))).toISOString().slice(0, 10);
}

type Part = 'rent' | 'deposit' | 'fees';
type Payer = 'carrier' | 'tpa' | 'policyholder';
type Parts = Record<Part, number>;
const partNames: Part[] = ['rent', 'deposit', 'fees'];
const noParts = (): Parts => ({ rent: 0, deposit: 0, fees: 0 });
const total = (p: Parts) => p.rent + p.deposit + p.fees;

/** A contract's prices: monthly amounts priced by the night, and the first payment's one-off fees and deposits. */
interface Terms {
  rent: number;
  petRent: number;
  utilities: number;
  fees: number;
  deposit: number;
}

/**
 * A night's price, part by part: billing periods run monthly from move-in, and the first n nights of
 * a period of D days at a monthly amount M cost round(M * n / D); so night i of its period costs the
 * difference of two such prefixes, and any run of nights adds up to the cent. Rent is the rent's
 * part; pet rent and utilities (each priced on its own) are fees.
 */
function nightPrice(t: Terms, moveIn: string, night: string): Parts {
  let k = 0;
  while (monthsAfter(moveIn, k + 1) <= night) k++;
  const start = monthsAfter(moveIn, k);
  const days = nightsFrom(start, monthsAfter(moveIn, k + 1));
  const i = nightsFrom(start, night);
  const at = (monthly: number) => Math.round((monthly * (i + 1)) / days) - Math.round((monthly * i) / days);
  return { rent: at(t.rent), deposit: 0, fees: at(t.petRent) + at(t.utilities) };
}

/**
 * A charge, the unit a payer pays: a contract version, a type (initial, rent, extension) and the
 * first day of the period it bills. Each part is paid once, by its payer, what it holds when paid.
 */
interface Charge {
  key: string;
  type: 'initial' | 'rent' | 'extension';
  periodStart: string;
  leaseId: string;
  /** What it charges now: its nights kept, its fees and deposits, less what was given back, plus what extensions moved. */
  held: Parts;
  paid: Parts;
  refunded: Parts;
  paidBy: Partial<Record<Part, Payer>>;
}
const settled = (c: Charge, q: Part) => c.paid[q] - c.refunded[q];
/** Owed back on a part: what its payer settled beyond what the charge now holds. */
const over = (c: Charge, q: Part) => (c.paidBy[q] ? Math.max(0, settled(c, q) - Math.max(0, c.held[q])) : 0);

type Purpose = 'owed_back' | 'deposit';

/** The stay as the model knows it. `today` is the sandbox clock's day (the clock stands at its noon). */
interface Model {
  terms: Terms;
  payers: Record<Part, Payer>;
  leaseId: string;
  moveIn: string;
  /** The stay's end: an extension moves it once in effect. */
  moveOut: string;
  today: string;
  /** The first payment made: the booking confirmed. */
  booked: boolean;
  movedIn: boolean;
  cancelled: boolean;
  /** The day a cancellation once moved in took effect: nights from it on are released. */
  cancelledOn: string | null;
  closedOut: boolean;
  charges: Map<string, Charge>;
  /** Every night a version signed: the charge it is on, and whether the stay still has it. */
  nights: Map<string, { charge: string; kept: boolean }>;
  /** Money an extension moved off a paid charge onto its own (taking back nights beyond what was settled for them), not moved back yet. */
  transfers: { from: string; to: string; ext: string; part: Part; cents: number }[];
  /** The open extension: asked and unsigned, or signed by both and unpaid. */
  ext: { id: string; from: string; to: string; signed: boolean } | null;
  /** The refund request waiting for the landlord. */
  /** A refund asked and not answered; room: what its payment paid of each part and has not had back (a refund returns at most that of each part). */
  pending: { paymentId: string; payer: Payer; first: string; cents: number; purpose: Purpose; goodwill: boolean; room: Record<Part, number> } | null;
  /** Deposits returned and goodwill given, per payer: money back that no released night accounts for. */
  given: Partial<Record<Payer, number>>;
}

function chargeOf(m: Model, leaseId: string, type: Charge['type'], periodStart: string): Charge {
  const key = `${leaseId}|${type}|${periodStart}`;
  if (!m.charges.has(key)) m.charges.set(key, { key, type, periodStart, leaseId, held: noParts(), paid: noParts(), refunded: noParts(), paidBy: {} });
  return m.charges.get(key)!;
}

function addNight(m: Model, c: Charge, night: string) {
  const price = nightPrice(m.terms, m.moveIn, night);
  for (const q of partNames) c.held[q] += price[q];
  m.nights.set(night, { charge: c.key, kept: true });
}

/** Both signed the lease: a charge per billing period (the first billed whole, with the fees and deposits). */
function signLease(m: Model) {
  for (let k = 0; monthsAfter(m.moveIn, k) < m.moveOut; k++) {
    const start = monthsAfter(m.moveIn, k);
    const c = chargeOf(m, m.leaseId, k === 0 ? 'initial' : 'rent', start);
    const end = k === 0 ? monthsAfter(m.moveIn, 1) : earlier(monthsAfter(m.moveIn, k + 1), m.moveOut);
    for (let night = start; night < end; night = plus(night, 1)) addNight(m, c, night);
    if (k === 0) {
      c.held.fees += m.terms.fees;
      c.held.deposit += m.terms.deposit;
    }
  }
}

/**
 * The nights from `from` on leave the stay (a shortening, a cancellation once moved in, a lapse):
 * released from the charges holding them; what an extension had moved off a charge for nights it
 * took back moves back with them, the latest first.
 */
function release(m: Model, from: string) {
  const released = new Map<string, Parts>();
  for (const [night, n] of m.nights) {
    if (!n.kept || night < from) continue;
    n.kept = false;
    const c = m.charges.get(n.charge)!;
    const price = nightPrice(m.terms, m.moveIn, night);
    const sum = released.get(c.key) ?? noParts();
    for (const q of partNames) {
      c.held[q] -= price[q];
      sum[q] += price[q];
    }
    released.set(c.key, sum);
  }
  for (const t of [...m.transfers].reverse()) {
    const value = released.get(t.from);
    if (!value || value[t.part] <= 0 || t.cents <= 0) continue;
    const back = Math.min(value[t.part], t.cents);
    moveBack(m, t, back);
    value[t.part] -= back;
  }
}

function moveBack(m: Model, t: Model['transfers'][number], cents: number) {
  m.charges.get(t.from)!.held[t.part] += cents;
  m.charges.get(t.to)!.held[t.part] -= cents;
  t.cents -= cents;
}

/** A cancellation before move-in: everything the stay still charges goes. */
function reverseAll(m: Model) {
  for (const n of m.nights.values()) n.kept = false;
  for (const c of m.charges.values()) c.held = noParts();
  m.transfers = [];
}

/**
 * Both signed an extension of the nights [from, to) (from: the stay's move-out when it was asked): nights released before come back first, on the charges that
 * signed them (what that puts on a paid part beyond what was settled for it moves to the
 * extension's charge); the nights no version signed before are the extension's own, on its charge.
 * Answers whether it has anything to pay (else it is in effect at once).
 */
function signExtension(m: Model, id: string, from: string, to: string): boolean {
  const signedTo = [...m.nights.keys()].reduce((end, night) => later(end, plus(night, 1)), from);
  const own = chargeOf(m, id, 'extension', signedTo < to ? signedTo : from);
  const restored = new Map<string, Parts>();
  for (const [night, n] of m.nights) {
    if (n.kept || night < from || night >= to) continue;
    n.kept = true;
    const price = nightPrice(m.terms, m.moveIn, night);
    const sum = restored.get(n.charge) ?? noParts();
    for (const q of partNames) sum[q] += price[q];
    restored.set(n.charge, sum);
  }
  for (const [key, value] of restored) {
    const c = m.charges.get(key)!;
    for (const q of partNames) {
      if (value[q] === 0) continue;
      const before = c.held[q];
      c.held[q] += value[q];
      if (!c.paidBy[q]) continue;
      const excess = c.held[q] - Math.max(settled(c, q), before);
      if (excess <= 0) continue;
      c.held[q] -= excess;
      own.held[q] += excess;
      m.transfers.push({ from: key, to: own.key, ext: id, part: q, cents: excess });
    }
  }
  for (let night = signedTo; night < to; night = plus(night, 1)) addNight(m, own, night);
  return total(own.held) > 0;
}

/** A signed extension unpaid when the stay ends lapses: its nights go, and what it moved goes back. */
function lapse(m: Model, ext: string) {
  release(m, m.moveOut);
  for (const t of m.transfers.filter((t) => t.ext === ext && t.cents > 0)) moveBack(m, t, t.cents);
}

const typeRank = { extension: 0, initial: 1, rent: 2 };
/** The charges in the order they are paid: extensions first, then the first payment, then rent by period. */
const inPayingOrder = (m: Model) =>
  [...m.charges.values()].sort((a, b) => typeRank[a.type] - typeRank[b.type] || a.periodStart.localeCompare(b.periodStart) || a.leaseId.localeCompare(b.leaseId));
const unpaidParts = (c: Charge) => partNames.filter((q) => c.held[q] > 0 && !c.paidBy[q]);

/** The charge due now: the first with a part no payment paid; a rent period only from its first day. */
function dueCharge(m: Model): Charge | null {
  const c = inPayingOrder(m).find((c) => unpaidParts(c).length > 0);
  return !c || (c.type === 'rent' && c.periodStart > m.today) ? null : c;
}

function dueByPayer(m: Model): Partial<Record<Payer, number>> {
  const due: Partial<Record<Payer, number>> = {};
  const c = dueCharge(m);
  for (const q of c ? unpaidParts(c) : []) due[m.payers[q]] = (due[m.payers[q]] ?? 0) + c!.held[q];
  return due;
}

/** Pays the charge due now, share by share; answers what each payer paid. */
function pay(m: Model): { charge: Charge; byPayer: Partial<Record<Payer, number>> } {
  const c = dueCharge(m)!;
  const byPayer: Partial<Record<Payer, number>> = {};
  for (const q of unpaidParts(c)) {
    c.paid[q] = c.held[q];
    c.paidBy[q] = m.payers[q];
    byPayer[m.payers[q]] = (byPayer[m.payers[q]] ?? 0) + c.held[q];
  }
  if (c.type === 'initial') m.booked = true;
  // The extension takes effect when the last share of its charge clears: the stay ends on its move-out.
  if (m.ext?.signed && c.leaseId === m.ext.id && unpaidParts(c).length === 0) {
    m.moveOut = m.ext.to;
    m.ext = null;
  }
  return { charge: c, byPayer };
}

/** What a refund for `purpose` can return to `payer`, part by part: the charge `first` first, then in paying order. */
function returnable(m: Model, purpose: Purpose, payer: Payer, first: string | null): { c: Charge; q: Part; cents: number }[] {
  const order = inPayingOrder(m);
  const charges = [...order.filter((c) => c.key === first), ...order.filter((c) => c.key !== first)];
  if (purpose === 'deposit') {
    return charges.flatMap((c) => {
      const held = c.paidBy.deposit === payer ? Math.min(settled(c, 'deposit'), Math.max(0, c.held.deposit)) : 0;
      return held > 0 ? [{ c, q: 'deposit' as const, cents: held }] : [];
    });
  }
  return charges.flatMap((c) => partNames.filter((q) => c.paidBy[q] === payer && over(c, q) > 0).map((q) => ({ c, q, cents: over(c, q) })));
}

const sumOf = (r: { cents: number }[]) => r.reduce((s, p) => s + p.cents, 0);

/**
 * A refund approved: what its purpose returns as the stay stands now, up to what was asked (a
 * deposit returned is released: it is never due again); with goodwill, the rest from the refunded
 * payment's own charge (rent, fees, deposit, what each holds of the payer's money), released as a
 * gift. Answers what came back.
 */
function approve(m: Model, r: NonNullable<Model['pending']>): number {
  let left = r.cents;
  const room = { ...r.room };
  for (const { c, q, cents } of returnable(m, r.purpose, r.payer, r.first)) {
    const x = Math.min(left, cents, room[q]);
    if (left <= 0) break;
    if (x <= 0) continue;
    room[q] -= x;
    c.refunded[q] += x;
    if (r.purpose === 'deposit') {
      c.held[q] -= x;
      m.given[r.payer] = (m.given[r.payer] ?? 0) + x;
    }
    left -= x;
  }
  const c = m.charges.get(r.first);
  if (left > 0 && r.goodwill && c) {
    for (const q of ['rent', 'fees', 'deposit'] as const) {
      const x = Math.min(left, room[q], c.paidBy[q] === r.payer ? settled(c, q) : 0);
      if (x <= 0) continue;
      room[q] -= x;
      c.refunded[q] += x;
      c.held[q] -= x;
      m.given[r.payer] = (m.given[r.payer] ?? 0) + x;
      left -= x;
    }
  }
  return r.cents - left;
}

/** Per payer, from the model: what is charged, paid, refunded, owed back and due now. */
function modelTotals(m: Model): Map<Payer, Totals> {
  const out = new Map<Payer, Totals>();
  const of = (p: Payer) => out.get(p) ?? out.set(p, { charged: 0, paid: 0, refunded: 0, due_now: 0, refund_due: 0 }).get(p)!;
  for (const c of m.charges.values()) {
    for (const q of partNames) {
      const payer = c.paidBy[q] ?? m.payers[q];
      of(payer).charged += c.held[q];
      of(payer).paid += c.paid[q];
      of(payer).refunded += c.refunded[q];
      of(payer).refund_due += over(c, q);
    }
  }
  for (const [p, cents] of Object.entries(dueByPayer(m)) as [Payer, number][]) of(p).due_now += cents;
  return out;
}

/**
 * What booking the stay's final dates directly charges each payer, from the nights alone: every
 * night the stay keeps (those of a signed, unpaid extension too, until it lapses), the first
 * payment's fees and deposits unless cancelled before move-in, less deposits returned and goodwill.
 */
function directly(m: Model): Map<Payer, number> {
  const out = new Map<Payer, number>();
  const add = (p: Payer, cents: number) => out.set(p, (out.get(p) ?? 0) + cents);
  for (const p of Object.values(m.payers)) add(p, 0);
  // Cancelled before move-in: nothing, and everything paid is owed back.
  if (m.cancelled && !m.movedIn) return out;
  {
    // A signed extension's nights are the ledger's until it lapses (a shortening withdraws it).
    const extra = m.ext?.signed ? { from: m.ext.from, to: m.ext.to } : null;
    const end = m.cancelledOn ? earlier(m.moveOut, m.cancelledOn) : m.moveOut;
    for (let night = m.moveIn; night < (extra?.to ?? end); night = plus(night, 1)) {
      if (night >= end && night < extra!.from) continue;
      const price = nightPrice(m.terms, m.moveIn, night);
      for (const q of partNames) add(m.payers[q], price[q]);
    }
    // The first month is billed whole, whatever the stay's end (every stay drawn holds more than a month until shortened).
    add(m.payers.fees, m.terms.fees);
    add(m.payers.deposit, m.terms.deposit);
  }
  for (const [p, cents] of Object.entries(m.given) as [Payer, number][]) add(p, -cents);
  return out;
}

// ---------------------------------------------------------------------------------------------
// The steps. Their numbers are read against the stay as it stands when they run (see run below).
// ---------------------------------------------------------------------------------------------

/**
 * How an approved refund is issued: at once, or refused by the processor on every attempt (its job
 * abandoned, payment.refund_failed) and then retried by an operator.
 */
const refundIssue = fc.constantFrom('issued' as const, 'issued' as const, 'issued' as const, 'fails_then_retried' as const);

/**
 * A refund: with the defaults; of part or all of what is owed back on a payment; beyond what is
 * owed back (refused); of the deposits; with goodwill. Approved, declined, or left pending.
 */
const refundStep = fc.record({
  kind: fc.constant('refund' as const),
  ask: fc.constantFrom('default' as const, 'partial' as const, 'full' as const, 'beyond' as const, 'deposit' as const, 'goodwill' as const),
  pick: fc.nat({ max: 1000 }),
  percent: fc.integer({ min: 1, max: 100 }),
  answer: fc.constantFrom('approve' as const, 'approve' as const, 'decline' as const, 'pending' as const),
  issue: refundIssue,
});

/** The landlord answers the refund left pending: approved, or declined when nothing is owed then. */
const answerStep = fc.record({ kind: fc.constant('answer_refund' as const), issue: refundIssue });

const step = fc.oneof(
  // Sometimes the payer's second checkout of the same share clears too: a duplicate, refunded automatically.
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('pay' as const), twice: fc.constantFrom(false, true) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('fail_payment' as const) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('advance' as const), days: fc.integer({ min: 1, max: 40 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('move_in' as const) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('shorten' as const), pick: fc.nat({ max: 1000 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('extend' as const),
      nights: fc.integer({ min: 1, max: 60 }),
      then: fc.constantFrom('paid' as const, 'paid' as const, 'signed' as const, 'open' as const, 'declined' as const),
    }),
  },
  // The open extension signed by both (when unsigned) or paid (when signed).
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('settle_extension' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const) }) },
  { weight: 6, arbitrary: refundStep },
  { weight: 1, arbitrary: answerStep },
  // The provider changes the home's rate after signing: what the stay charges never follows it.
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('change_rate' as const), monthlyCents: fc.integer({ min: 100_000, max: 900_000 }) }) },
);
type Step = typeof step extends fc.Arbitrary<infer S> ? S : never;

/** After the closeout: refunds, their answers, and a cancellation of the stay closed out. */
const afterStep = fc.oneof(
  { weight: 4, arbitrary: refundStep },
  { weight: 1, arbitrary: answerStep },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const) }) },
);

/**
 * Dates set before the ones signed: each another contract version, sent, perhaps signed by the
 * household, then superseded; the home's rate may change before it is issued.
 */
const redating = fc.record({
  lead: fc.integer({ min: 1, max: 15 }),
  nights: fc.integer({ min: 35, max: 120 }),
  monthlyCents: fc.option(fc.integer({ min: 100_000, max: 900_000 }), { nil: undefined }),
  householdSigned: fc.boolean(),
});

/**
 * Where a stay starts: the home's prices (any monthly rate, utilities or not, pets or not, fees),
 * who pays what, earlier dates set and replaced before signing, days from the clock's first day to
 * move-in, nights booked, the rate changed before the dates signed when rerated, a declined card
 * before the first payment, the first payment made (most often), and the household moved in.
 */
const booked = fc.record({
  redates: fc.array(redating, { maxLength: 2 }),
  rerated: fc.option(fc.integer({ min: 100_000, max: 900_000 }), { nil: undefined }),
  lead: fc.integer({ min: 1, max: 15 }),
  nights: fc.integer({ min: 35, max: 120 }),
  monthlyCents: fc.integer({ min: 100_000, max: 900_000 }),
  home: fc.record({
    utilitiesCents: fc.option(fc.integer({ min: 1, max: 40_000 }), { nil: undefined }),
    pets: fc.boolean(),
    petRentCents: fc.integer({ min: 0, max: 30_000 }),
    petDepositCents: fc.integer({ min: 0, max: 50_000 }),
    cleaningCents: fc.integer({ min: 0, max: 30_000 }),
    applicationCents: fc.integer({ min: 0, max: 10_000 }),
  }),
  failFirst: fc.boolean(),
  paid: fc.constantFrom(true, true, true, true, false),
  movedIn: fc.constantFrom(true, true, false),
  // One payer for everything, or rent, deposits and fees split between two or three payers (each share its own payment).
  payers: fc.constantFrom<Record<string, string>>(
    {},
    { deposit_payer: 'policyholder' },
    { deposit_payer: 'tpa', fees_payer: 'policyholder' },
    { rent_payer: 'tpa', deposit_payer: 'carrier', fees_payer: 'carrier' },
    { fees_payer: 'policyholder' },
  ),
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

interface Totals { charged: number; paid: number; refunded: number; due_now: number; refund_due: number }

interface Statement {
  entries: Record<string, unknown>[];
  totals: Totals;
  by_payer: (Totals & { payer: Payer })[];
  payments: { id: string; payer: Payer; amount: number; refunded: number; lease_id: string; charge_type: string; period_start: string; paid_at: string }[];
}

const cents = (major: number) => Math.round(major * 100);
const inCents = (t: Totals): Totals => ({ charged: cents(t.charged), paid: cents(t.paid), refunded: cents(t.refunded), due_now: cents(t.due_now), refund_due: cents(t.refund_due) });

/** No answer is a server error. */
function answered(res: { status: number; text: string; body?: unknown }, what: string): { status: number; text: string; body: any } {
  expect(res.status, `${what} answered ${res.status}: ${res.text}`).toBeLessThan(500);
  return res as { status: number; text: string; body: any };
}

async function statementOf(s: Stay): Promise<Statement> {
  const res = answered(await s.api.get(`/claims/${s.ref}/statement?property_id=${s.home}`), 'the statement');
  expect(res.status, res.text).toBe(200);
  return res.body.data as Statement;
}

const leftOn = (p: Statement['payments'][number]) => cents(p.amount) - cents(p.refunded);
const chargeKeyOf = (p: Statement['payments'][number]) => `${p.lease_id}|${p.charge_type}|${p.period_start}`;

/**
 * A new organisation (its own sandbox clock, at noon on `firstDay`: by default tomorrow) with a
 * request placed on a home priced as drawn (a new one unless `home` names one), dated (first with
 * the earlier dates of `redates`, each replaced before signing), signed by both and, as drawn, paid.
 */
async function bookedStay(b: Booked, at: { home?: string; firstDay?: string } = {}): Promise<{ stay: Stay; model: Model }> {
  const tenant = await createTenant('carrier');
  const api = client(tenant.sandbox);
  const today = at.firstDay ?? plus(new Date().toISOString().slice(0, 10), 1);
  await clockAt(api, today);
  const home = at.home ?? (await insertHome(providerOrg, { environment: 'sandbox', monthly_rate_cents: b.monthlyCents }));
  const h = b.home;
  await ownerSql()`
    update app.properties set monthly_rate_cents = ${b.monthlyCents}, utilities_included = ${h.utilitiesCents === undefined},
      utilities_monthly_cents = ${h.utilitiesCents ?? 0}, pet_rent_cents = ${h.petRentCents}, pet_deposit_cents = ${h.petDepositCents},
      cleaning_fee_cents = ${h.cleaningCents}, application_fee_cents = ${h.applicationCents}
    where id = ${home}`;
  const rate = (monthlyCents: number) => ownerSql()`update app.properties set monthly_rate_cents = ${monthlyCents} where id = ${home}`;
  const [prices] = await ownerSql()<{ deposit: string; pet_fee: string }[]>`select security_deposit_cents as deposit, pet_fee_cents as pet_fee from app.properties where id = ${home}`;
  const moveIn = plus(today, b.lead);
  const moveOut = plus(moveIn, b.nights);
  const pets = h.pets ? { has_pets: true, number_of_pets: 1, pet_details: 'A calm dog', pet_breeds: ['Labrador'] } : { has_pets: false };
  const created = await api.post('/claims', claimBody({ target_move_in: moveIn, est_length_months: 3, ...pets, ...b.payers }));
  expect(created.status, created.text).toBe(201);
  const claim = created.body.data!;
  await sourced(claim.id);
  const stay = { api, orgId: tenant.orgId, ref: claim.claim_ref, home };
  const placing = await api.post(`/claims/${stay.ref}/options`, { property_id: home, action: 'place', approve_budget: true });
  expect(placing.status, placing.text).toBe(200);
  // Re-dating before both signatures: each earlier version is superseded, a first signature not carried over.
  let monthlyCents = b.monthlyCents;
  let previous = '';
  for (const [i, r] of b.redates.entries()) {
    if (r.monthlyCents !== undefined) await rate((monthlyCents = r.monthlyCents));
    // Other dates than the version before and, for the last, than the ones signed: the same dates again would change nothing.
    let nights = r.nights;
    const key = (n: number) => `${r.lead}/${n}`;
    while (key(nights) === previous || (i === b.redates.length - 1 && key(nights) === `${b.lead}/${b.nights}`)) nights++;
    previous = key(nights);
    const earlierDates = { move_in: plus(today, r.lead), move_out: plus(today, r.lead + nights) };
    const dated = await api.post(`/claims/${stay.ref}/dates`, { property_id: home, ...earlierDates });
    expect(dated.status, dated.text).toBe(200);
    await drainJobs(stay.orgId);
    if (r.householdSigned) expect((await api.post(helper(stay, 'household'), { action: 'sign' })).status).toBe(200);
  }
  if (b.rerated !== undefined) await rate((monthlyCents = b.rerated));
  const dated = await api.post(`/claims/${stay.ref}/dates`, { property_id: home, move_in: moveIn, move_out: moveOut });
  expect(dated.status, dated.text).toBe(200);
  await drainJobs(stay.orgId);
  await signBoth(stay);
  const placed = (await api.get(`/claims/${stay.ref}/placement`)).body.data.homes.find((p: { property_id: string }) => p.property_id === home)!;
  expect(placed.lease, 'the version signed is the last one dated').toMatchObject({ version: b.redates.length + 1, move_in_date: moveIn, move_out_date: moveOut, status: 'fully_signed' });
  expect(placed.lease_history.map((l: { status: string; owner_signed_at: string | null }) => [l.status, l.owner_signed_at]), 'every earlier version superseded, none signed by both').toEqual(
    b.redates.map(() => ['superseded', null]),
  );
  const rentPayer = (b.payers.rent_payer ?? 'carrier') as Payer;
  const model: Model = {
    terms: {
      rent: monthlyCents,
      petRent: h.pets ? h.petRentCents : 0,
      utilities: h.utilitiesCents ?? 0,
      fees: h.cleaningCents + h.applicationCents + (h.pets ? Number(prices.pet_fee) : 0),
      deposit: Number(prices.deposit) + (h.pets ? h.petDepositCents : 0),
    },
    payers: { rent: rentPayer, deposit: (b.payers.deposit_payer ?? 'carrier') as Payer, fees: (b.payers.fees_payer ?? rentPayer) as Payer },
    leaseId: placed.lease!.id,
    moveIn, moveOut, today,
    booked: false, movedIn: false, cancelled: false, cancelledOn: null, closedOut: false,
    charges: new Map(), nights: new Map(), transfers: [], ext: null, pending: null, given: {},
  };
  signLease(model);
  if (b.failFirst) expect((await payment(stay, 'failed')).status).toBe(200);
  if (!b.paid) return { stay, model };
  expect(await payDue(stay, model)).toBeGreaterThanOrEqual(1);
  if (b.movedIn) {
    await advanceTo(api, moveIn);
    model.today = moveIn;
    expect((await api.post(`/claims/${stay.ref}/confirm-move-in`, { property_id: home })).status).toBe(200);
    model.movedIn = true;
  }
  return { stay, model };
}

/**
 * Moves the organisation's clock forward to noon of `day`, running the jobs that waited for it (the
 * stay's scheduled steps, the closeout); setting the clock anew would leave them waiting.
 */
async function advanceTo(api: Api, day: string) {
  const res = await api.post('/sandbox/clock/advance', { frozen_time: `${day}T12:00:00Z` });
  expect(res.status, `the clock advanced to ${day}: ${res.text}`).toBe(200);
}

const helper = (s: Stay, who: 'household' | 'landlord') => `/sandbox/claims/${s.ref}/homes/${s.home}/${who}`;

const payment = (s: Stay, outcome: 'succeeded' | 'failed' | 'duplicate') => s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/payment`, { outcome });

async function signBoth(s: Stay) {
  for (const who of ['household', 'landlord'] as const) {
    const res = await s.api.post(helper(s, who), { action: 'sign' });
    expect(res.status, `${who} signs: ${res.text}`).toBe(200);
  }
}

/**
 * Pays everything due now, charge after charge, each time checking that the payment helper charges
 * each payer the statement's due_now for the charge the model says is due; answers how many charges
 * that took.
 */
async function payDue(s: Stay, m: Model, first: 'succeeded' | 'duplicate' = 'succeeded'): Promise<number> {
  for (let charges = 0; ; charges++) {
    expect(charges, 'charges paid in one go').toBeLessThan(40);
    const before = await statementOf(s);
    const outcome = charges === 0 ? first : 'succeeded';
    const res = answered(await payment(s, outcome), 'a payment');
    const due = dueCharge(m);
    if (res.status === 409 && (res.body.error?.code === 'nothing_due' || (m.cancelled && res.body.error?.code === 'not_on_request'))) {
      expect(due, `nothing due (${res.body.error.code}) where the model has ${due?.key} due`).toBeNull();
      expect(cents(before.totals.due_now), 'due_now with nothing to pay').toBe(0);
      return charges;
    }
    expect(res.status, res.text).toBe(200);
    expect(due, 'a payment taken where the model has nothing due').not.toBeNull();
    const known = new Set(before.payments.map((p) => p.id));
    const payments = res.body.data.payments as { id: string; status: string; payer: Payer; amount: number; charge_type: string; duplicate_of: string | null }[];
    const made = payments.filter((p) => p.status === 'succeeded' && !known.has(p.id) && !p.duplicate_of);
    if (outcome === 'duplicate') {
      // Each share cleared twice: the second of each is kept as a duplicate of the first, and moves nothing.
      const twice = payments.filter((p) => p.duplicate_of && !known.has(p.id));
      expect(twice.map((p) => [p.payer, p.amount, made.find((x) => x.id === p.duplicate_of)?.amount]), 'one duplicate of each share paid')
        .toEqual(made.map((p) => [p.payer, p.amount, p.amount]));
      count('duplicate charges');
      await drainJobs(s.orgId);
    }
    const byPayer = Object.fromEntries(made.map((p) => [p.payer, cents(p.amount)]));
    const shown = Object.fromEntries(before.by_payer.filter((t) => cents(t.due_now) > 0).map((t) => [t.payer, cents(t.due_now)]));
    expect(byPayer, 'the payment helper charges each payer its due_now').toEqual(shown);
    const paid = pay(m);
    expect(byPayer, `what the model has due on ${paid.charge.key}`).toEqual(paid.byPayer);
    for (const p of made) expect(p.charge_type).toBe(paid.charge.type);
  }
}

/**
 * What a step did beside what the model holds: 'unchanged' when no total may move (a refused step,
 * a declined or pending refund).
 */
type Outcome = 'unchanged' | undefined;

/** Runs one step through the API and moves the model as the documented rules say the step moves the stay. */
async function run(s: Stay, m: Model, st: Step): Promise<Outcome> {
  const refused = (res: { status: number; text: string }, what: string): Outcome => {
    answered(res, what);
    expect([400, 404, 409, 422], `${what} answered ${res.status}: ${res.text}`).toContain(res.status);
    return 'unchanged';
  };
  switch (st.kind) {
    case 'pay': {
      if (m.cancelled && !m.movedIn) return refused(await payment(s, 'succeeded'), 'a payment after cancellation before move-in');
      await payDue(s, m, st.twice ? 'duplicate' : 'succeeded');
      return;
    }
    case 'fail_payment': {
      // Declined by the card: recorded as failed when something is due, nothing due otherwise; either way nothing changes.
      const res = answered(await payment(s, 'failed'), 'a failed payment');
      return res.status === 200 ? 'unchanged' : refused(res, 'a failed payment');
    }
    case 'advance': {
      // Up to the last night: the stay ends in the final phase only.
      const to = earlier(plus(m.today, st.days), plus(m.moveOut, -1));
      if (to <= m.today) return;
      await advanceTo(s.api, to);
      m.today = to;
      return;
    }
    case 'move_in': {
      if (m.movedIn) return;
      const res = answered(await s.api.post(`/claims/${s.ref}/confirm-move-in`, { property_id: s.home }), 'a move-in');
      if (m.cancelled) return refused(res, 'a move-in after cancellation');
      if (!m.booked) {
        expect(res.body.error?.code, res.text).toBe('not_booked');
        return 'unchanged';
      }
      // The move-in day counts once it has begun somewhere (UTC+14): from the day before it, at the clock's noon.
      if (m.moveIn > plus(m.today, 1)) {
        expect(res.status, res.text).toBe(409);
        expect(res.body.error?.code).toBe('move_in_not_yet');
        return 'unchanged';
      }
      expect(res.status, res.text).toBe(200);
      m.movedIn = true;
      return;
    }
    case 'shorten': {
      // One draw in four with an extension open and moved in: a move-out inside its nights, refused
      // (409 extension_pending, field move_out) while it is not in effect; it changes nothing.
      const inside = m.ext && m.movedIn && !m.cancelled && st.pick % 4 === 0 ? nightsFrom(m.ext.from, m.ext.to) - 1 : 0;
      // The stay not ended by the earliest clock on Earth (the next day from the clock's noon).
      if (inside > 0 && m.ext && plus(m.today, 1) < m.moveOut) {
        const into = plus(m.ext.from, 1 + (st.pick % inside));
        const res = answered(await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: m.moveIn, move_out: into }), 'a shortening inside an open extension');
        expect(res.status, res.text).toBe(409);
        expect(res.body.error, res.text).toMatchObject({ code: 'extension_pending', field: 'move_out' });
        count('shortenings inside an extension not in effect, refused');
        return 'unchanged';
      }
      // Never into the first month, never in the past by the clock, always earlier than the stay's move-out.
      const lo = later(plus(m.moveIn, 32), plus(m.today, 1));
      const span = nightsFrom(lo, m.moveOut);
      if (span < 1) return;
      const to = plus(lo, st.pick % span);
      const res = answered(await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: m.moveIn, move_out: to }), 'a shortening');
      // Only a stay moved in is shortened; before that the signed lease refuses new dates.
      if (!m.movedIn || m.cancelled) return refused(res, 'a shortening before move-in');
      // A move-out before the nights of an extension not in effect yet withdraws it: it was asked from the move-out the shortening moves. Signed, its nights
      // go with the stay's and what it moved goes back, as at a lapse.
      expect(res.status, res.text).toBe(200);
      release(m, to);
      m.moveOut = to;
      if (m.ext) {
        count(m.ext.signed ? 'signed extensions withdrawn by a shortening' : 'unsigned extensions withdrawn by a shortening');
        if (m.ext.signed) lapse(m, m.ext.id);
        m.ext = null;
      }
      return;
    }
    case 'extend': {
      let to = plus(m.moveOut, st.nights);
      // Another move-out than the open extension's: the same one again answers the open one.
      if (m.ext && to === m.ext.to) to = plus(to, 1);
      const res = answered(await s.api.post(`/claims/${s.ref}/extensions`, { property_id: s.home, move_out: to }), 'an extension');
      if (m.cancelled) return refused(res, 'an extension after cancellation');
      if (!m.booked) {
        expect(res.body.error?.code, res.text).toBe('not_booked');
        return 'unchanged';
      }
      if (m.ext) {
        expect(res.body.error?.code, res.text).toBe('extension_pending');
        return 'unchanged';
      }
      expect(res.status, res.text).toBe(201);
      await drainJobs(s.orgId);
      if (st.then === 'declined') {
        const declined = await s.api.post(helper(s, 'landlord'), { action: 'decline_extension' });
        expect(declined.status, declined.text).toBe(200);
        return 'unchanged';
      }
      m.ext = { id: res.body.data.id, from: m.moveOut, to, signed: false };
      if (st.then === 'open') return 'unchanged';
      await signExtensionBoth(s, m);
      if (st.then === 'paid') await payDue(s, m);
      return;
    }
    case 'settle_extension': {
      if (!m.ext) return;
      if (!m.ext.signed) await signExtensionBoth(s, m);
      else await payDue(s, m);
      return;
    }
    case 'change_rate': {
      await ownerSql()`update app.properties set monthly_rate_cents = ${st.monthlyCents} where id = ${s.home}`;
      return;
    }
    case 'cancel': {
      const res = answered(await s.api.post(`/claims/${s.ref}/cancel-booking`, { property_id: s.home, force: true }), 'a cancellation');
      if (m.cancelled) return refused(res, 'a second cancellation');
      expect(res.status, res.text).toBe(200);
      m.cancelled = true;
      // An open extension goes with the placement (its nights, if signed, with the stay's).
      if (m.movedIn) {
        m.cancelledOn = later(m.today, m.moveIn);
        release(m, m.cancelledOn);
      } else reverseAll(m);
      m.ext = null;
      return;
    }
    case 'answer_refund': {
      const r = m.pending;
      // A refund that fails waits for the scheduler's runs, so every attempt is this step's.
      const afterCommit = process.env.JOBS_RUN_AFTER_COMMIT;
      if (st.issue === 'fails_then_retried') process.env.JOBS_RUN_AFTER_COMMIT = 'false';
      const approval = s.api.post(helper(s, 'landlord'), { action: 'approve_refund' });
      const res = answered(await approval.finally(() => restoreSetting('JOBS_RUN_AFTER_COMMIT', afterCommit)), 'an approval');
      if (!r) {
        expect(res.body.error?.code, res.text).toBe('no_refund_request');
        return 'unchanged';
      }
      m.pending = null;
      const back = approve(m, r);
      if (back === 0) {
        // The stay changed since it was asked and nothing is owed back now: refused, then declined.
        expect(res.status, res.text).toBe(409);
        expect(res.body.error?.code).toBe('nothing_to_refund');
        const declined = await s.api.post(helper(s, 'landlord'), { action: 'decline_refund' });
        expect(declined.status, declined.text).toBe(200);
        return 'unchanged';
      }
      expect(res.status, res.text).toBe(200);
      if (st.issue === 'fails_then_retried') await failThenRetry(s);
      await drainJobs(s.orgId);
      return;
    }
    case 'refund':
      return refund(s, m, st);
  }
}

function restoreSetting(name: string, value: string | undefined) {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

/**
 * The approved refund's job fails every attempt (the processor refuses it) until it is abandoned and
 * announced; an operator then retries it from the console, and it is issued. What the refund posted
 * stays posted throughout: the stay's figures are those of the approval (checked after the step).
 */
async function failThenRetry(s: Stay) {
  const failedBefore = await refundFailures(s);
  const refused = vi.spyOn(sandboxPayments, 'refund').mockRejectedValue(new Error('the processor is down'));
  try {
    const [job] = await ownerSql()<{ id: string }[]>`
      update app.jobs set max_attempts = 1 where org_id = ${s.orgId} and kind = 'issue_refund' and status = 'pending' returning id`;
    expect(job, 'the approval queued its refund').toBeDefined();
    await drainJobs(s.orgId);
    expect(refused).toHaveBeenCalledTimes(1);
    expect(await ownerSql()`select status from app.jobs where id = ${job.id}`).toEqual([{ status: 'abandoned' }]);
    expect(await refundFailures(s), 'payment.refund_failed announced once').toBe(failedBefore + 1);
    // Its entries stay posted: the reconciliation sees it in flight, not as a difference.
    const found = await ownerSql()<{ kind: string }[]>`
      select d.kind from staff.ledger_differences d join app.claim_options h on h.id = d.placement_id
       where d.reference = ${s.ref} and h.property_id = ${s.home}`;
    expect(found.map((d) => d.kind), 'the reconciliation while the refund fails').toEqual(['refund_in_flight']);
    refused.mockRestore();
    await consoleCommand('job', 'retry', '--id', job.id);
    count('refunds that failed, then were retried');
  } finally {
    refused.mockRestore();
  }
}

const refundFailures = async (s: Stay) =>
  Number((await ownerSql()<{ n: string }[]>`select count(*) as n from app.events where org_id = ${s.orgId} and event = 'payment.refund_failed'`)[0].n);

async function signExtensionBoth(s: Stay, m: Model) {
  await signBoth(s);
  const ext = m.ext!;
  ext.signed = true;
  // With nothing of its own to pay it is in effect at once.
  if (!signExtension(m, ext.id, ext.from, ext.to)) {
    m.moveOut = ext.to;
    m.ext = null;
  }
}

/** A refund asked as the step draws it, then answered by the landlord. */
async function refund(s: Stay, m: Model, st: Extract<Step, { kind: 'refund' }>): Promise<Outcome> {
  const statement = await statementOf(s);
  const owed = (purpose: Purpose, payer: Payer) => sumOf(returnable(m, purpose, payer, null));
  const open = statement.payments.filter((p) => leftOn(p) > 0);
  // Money goes back on the payment that brought it: what a payment paid of each part and has not had
  // back (its payment and refund entries), and what a refund on it can return to its payer, each
  // part at most that.
  const roomOn = (p: Statement['payments'][number]) => {
    const room: Record<Part, number> = { rent: 0, deposit: 0, fees: 0 };
    for (const e of statement.entries) if (e.payment_id === p.id && (e.kind === 'payment' || e.kind === 'refund')) room[e.part as Part] -= cents(e.amount as number);
    return room;
  };
  const owedOn = (purpose: Purpose, p: Statement['payments'][number]) => {
    const room = roomOn(p);
    return sumOf(returnable(m, purpose, p.payer, chargeKeyOf(p)).map(({ q, cents: c }) => {
      const x = Math.min(c, room[q]);
      room[q] -= x;
      return { cents: x };
    }));
  };
  const ask = async (body: Record<string, unknown>) => answered(await s.api.post(`/claims/${s.ref}/refund-request`, { property_id: s.home, ...body }), `a refund asked ${JSON.stringify(body)}`);
  if (m.pending) {
    const res = await ask({});
    expect(res.body.error?.code, res.text).toBe('refund_pending');
    return 'unchanged';
  }
  let body: Record<string, unknown>;
  const purpose: Purpose = st.ask === 'deposit' ? 'deposit' : 'owed_back';
  if (st.ask === 'default' || st.ask === 'deposit') {
    body = st.ask === 'deposit' ? { purpose } : {};
    const owing = open.filter((p) => owedOn(purpose, p) > 0);
    if (owing.length === 0) {
      const res = await ask(body);
      expect(res.body.error?.code, `nothing owed back: ${res.text}`).toBe('nothing_to_refund');
      return 'unchanged';
    }
  } else {
    // A payment: one that can return something owed back, else (beyond, goodwill) any with something left.
    const owing = open.filter((p) => owedOn(purpose, p) > 0);
    const among = st.ask === 'partial' || st.ask === 'full' ? owing : owing.length > 0 && st.pick % 3 > 0 ? owing : open;
    if (among.length === 0) return;
    const p = among[st.pick % among.length];
    const most = Math.min(leftOn(p), owedOn(purpose, p));
    const amount = st.ask === 'partial' ? Math.max(1, Math.floor((most * st.percent) / 100))
      : st.ask === 'full' ? most
        : st.ask === 'beyond' ? most + Math.max(1, Math.floor((leftOn(p) * st.percent) / 1000))
          : Math.min(leftOn(p), most + Math.max(1, Math.floor((leftOn(p) * st.percent) / 200)));
    body = { payment_id: p.id, amount: amount / 100, ...(st.ask === 'goodwill' ? { goodwill: true } : {}) };
    if (st.ask === 'beyond') {
      // More than is owed back (or left on the payment), without goodwill: refused, naming what is.
      const res = await ask(body);
      expect(res.status, res.text).toBe(422);
      expect(res.body.error, res.text).toMatchObject({ code: 'invalid_field', field: 'amount' });
      if (amount <= leftOn(p)) expect(res.body.error.message).toContain(`${owedOn(purpose, p) / 100} USD is owed back`);
      return 'unchanged';
    }
  }
  const res = await ask(body);
  expect(res.status, res.text).toBe(202);
  const asked = res.body.data as { payment_id: string; payer: Payer; amount_cents: number; purpose: Purpose; goodwill: boolean };
  const p = statement.payments.find((x) => x.id === asked.payment_id)!;
  expect(p, 'the payment refunded is one of the statement').toBeDefined();
  expect(asked.payer).toBe(p.payer);
  if (st.ask === 'default' || st.ask === 'deposit') {
    // The defaults ask what the payer is owed back (the deposits it paid), up to what the payment can return of each part and has left.
    const payerOwed = owed(purpose, asked.payer);
    expect(payerOwed, 'the defaults refund a payer the stay owes').toBeGreaterThan(0);
    expect(asked.amount_cents, `the default refund of ${asked.payer}`).toBe(Math.min(owedOn(purpose, p), leftOn(p)));
    if (purpose === 'owed_back') {
      expect(asked.amount_cents, 'refund_due of the payer').toBeLessThanOrEqual(cents(statement.by_payer.find((t) => t.payer === asked.payer)!.refund_due));
    }
  } else expect(asked.amount_cents).toBe(Math.round((body.amount as number) * 100));
  expect(asked).toMatchObject({ purpose, goodwill: st.ask === 'goodwill' });
  const request = { paymentId: p.id, payer: p.payer, first: chargeKeyOf(p), cents: asked.amount_cents, purpose, goodwill: st.ask === 'goodwill', room: roomOn(p) };
  if (st.answer === 'pending') {
    m.pending = request;
    return 'unchanged';
  }
  if (st.answer === 'decline') {
    const declined = await s.api.post(helper(s, 'landlord'), { action: 'decline_refund' });
    expect(declined.status, declined.text).toBe(200);
    return 'unchanged';
  }
  m.pending = request;
  return run(s, m, { kind: 'answer_refund', issue: st.issue });
}

/**
 * What was shown before: statement entries by id (all but what is read beside them: who pays and
 * what paid them, the payer's running balance that follows who pays, and whether a rent period is
 * still scheduled, which follows the clock) and timeline entries.
 */
interface Seen { entries: Map<string, string>; timeline: string[] }

/** The statement and the timeline against the model; answers what they show now. */
async function check(s: Stay, m: Model, before: Seen, after: string): Promise<{ seen: Seen; totals: Totals; byPayer: Map<Payer, Totals> }> {
  const statement = await statementOf(s);
  const t = inCents(statement.totals);
  const byPayer = new Map(statement.by_payer.map((p) => [p.payer, inCents(p)]));
  const expected = modelTotals(m);
  for (const payer of new Set([...byPayer.keys(), ...expected.keys()])) {
    const zero = { charged: 0, paid: 0, refunded: 0, due_now: 0, refund_due: 0 };
    expect(byPayer.get(payer) ?? zero, `after ${after}: ${payer}'s totals`).toEqual(expected.get(payer) ?? zero);
  }
  const direct = directly(m);
  expect(t.charged, `after ${after}: charged for the nights ${m.moveIn} to ${m.moveOut}, the fees and deposits`).toBe([...direct.values()].reduce((a, b) => a + b, 0));
  expect(t.refunded, `after ${after}: refunded beyond what was paid`).toBeLessThanOrEqual(t.paid);

  // Who pays a part, the running balance and whether a period is still to come are read afresh; the entry itself never changes.
  const now = new Map(statement.entries.map(({ settled_by: _settled, payer: _payer, balance_after: _balance, scheduled: _scheduled, ...entry }: Record<string, unknown>) => [entry.id as string, JSON.stringify(entry)]));
  for (const [id, entry] of before.entries) expect(now.get(id), `after ${after}: a statement entry changed or went`).toBe(entry);

  const timeline = ((await s.api.get(`/claims/${s.ref}/timeline`)).body.data ?? []) as { at: string; type: string; summary: string; property_id?: string; detail: unknown }[];
  const shown = timeline.map((e) => JSON.stringify([e.at, e.type, e.summary, e.property_id ?? null, e.detail]));
  const rest = [...shown];
  for (const entry of before.timeline) {
    const at = rest.indexOf(entry);
    expect(at, `after ${after}: timeline entry ${entry} changed or went`).toBeGreaterThanOrEqual(0);
    rest.splice(at, 1);
  }
  return { seen: { entries: now, timeline: shown }, totals: t, byPayer };
}

/** Paid to its end: nothing due, and each payer has paid net (less what is owed back) what the final dates booked directly charge it. */
function paidToItsEnd(m: Model, byPayer: Map<Payer, Totals>, what: string) {
  const direct = directly(m);
  // Goodwill given on a charge whose nights were then released is not taken back from other charges: a part never pays below nothing.
  for (const c of m.charges.values()) for (const q of partNames) if (c.held[q] < 0 && c.paidBy[q]) direct.set(c.paidBy[q]!, (direct.get(c.paidBy[q]!) ?? 0) - c.held[q]);
  for (const [payer, cents] of direct) {
    const t = byPayer.get(payer) ?? { charged: 0, paid: 0, refunded: 0, due_now: 0, refund_due: 0 };
    expect(t.due_now, `${what}: ${payer} has nothing due`).toBe(0);
    expect(t.paid - t.refunded - t.refund_due, `${what}: ${payer} paid net what the final dates booked directly charge it`).toBe(cents);
  }
}

/** The end of a stay: the clock past its move-out, the closeout run (an unpaid extension lapses), everything due paid. */
async function closeout(stay: Stay, model: Model, seen: Seen, what: string) {
  // A stay is paid to its end: the first payment too, when it was never made.
  if (!model.booked && !model.cancelled) await payDue(stay, model);
  model.today = plus(model.moveOut, 1);
  await advanceTo(stay.api, model.today);
  await drainJobs(stay.orgId);
  if (model.ext?.signed) {
    count('extensions lapsed at the closeout');
    lapse(model, model.ext.id);
  }
  model.ext = null;
  model.closedOut = true;
  if (model.booked && !model.cancelled) {
    const home = (await stay.api.get(`/claims/${stay.ref}/placement`)).body.data.homes.find((p: { property_id: string }) => p.property_id === stay.home);
    expect(home?.booking?.booking_status, `${what}: the booking is closed out`).toBe('completed');
  }
  await payDue(stay, model);
  const closed = await check(stay, model, seen, what);
  paidToItsEnd(model, closed.byPayer, what);
  return closed;
}

/**
 * The reconciliation (staff.ledger_differences) finds nothing on the stay: its ledger and the
 * processor's record of the same payments, refunds and service fees agree (a refund approved and not
 * issued yet is in flight, not a difference).
 */
async function reconciles(stay: Stay, what: string) {
  await drainJobs(stay.orgId);
  const found = await ownerSql()<{ kind: string; detail: string }[]>`
    select d.kind, d.detail from staff.ledger_differences d join app.claim_options h on h.id = d.placement_id
     where d.reference = ${stay.ref} and h.property_id = ${stay.home}`;
  expect(found, `${what}: the reconciliation`).toEqual([]);
  count('stays reconciled');
}

describe('the ledger of a stay under random sequences of changes', () => {
  it(`charges every night of the stay once, to its payer, as the documented rules price it, over ${runs} sequences (seed ${seed})`, { timeout: Math.max(1_800_000, runs * 30_000) }, async () => {
    await fc.assert(
      fc.asyncProperty(booked, fc.array(step, { minLength: 2, maxLength: 12 }), fc.array(afterStep, { maxLength: 3 }), fc.option(booked, { freq: 3, nil: undefined }), async (b, steps, afterwards, next) => {
        count('sequences');
        const { stay, model } = await bookedStay(b);
        let { seen, totals } = await check(stay, model, { entries: new Map(), timeline: [] }, 'booking');
        for (const st of steps) {
          const outcome = await run(stay, model, st);
          count('steps');
          const variant = 'ask' in st ? `:${st.ask}:${st.answer}` : 'then' in st ? `:${st.then}` : 'twice' in st && st.twice ? ':twice' : '';
          count(`${st.kind}${variant}${outcome === 'unchanged' ? ' (nothing moved)' : ''}`);
          if (model.transfers.some((t) => t.cents > 0)) count('steps with nights taken back beyond what was settled');
          const before = totals;
          ({ seen, totals } = await check(stay, model, seen, JSON.stringify(st)));
          if (outcome === 'unchanged') expect(totals, `${JSON.stringify(st)} changed a total`).toEqual(before);
        }
        let closed = await closeout(stay, model, seen, 'the closeout');
        // After the closeout: refunds (what is owed back, deposits, goodwill), their answers, a cancellation.
        for (const st of [...afterwards, ...(model.pending ? [{ kind: 'answer_refund' as const, issue: 'issued' as const }] : [])]) {
          const outcome = await run(stay, model, st);
          const now = await check(stay, model, closed.seen, `${JSON.stringify(st)} after the closeout`);
          if (outcome === 'unchanged') expect(now.totals, `${JSON.stringify(st)} after the closeout changed a total`).toEqual(closed.totals);
          await payDue(stay, model);
          closed = await check(stay, model, now.seen, `${JSON.stringify(st)} after the closeout, paid`);
          paidToItsEnd(model, closed.byPayer, `${JSON.stringify(st)} after the closeout`);
        }
        if (model.pending) {
          await run(stay, model, { kind: 'answer_refund', issue: 'issued' });
          closed = await check(stay, model, closed.seen, 'the last refund answered');
          paidToItsEnd(model, closed.byPayer, 'the last refund answered');
        }
        await reconciles(stay, 'the end of the stay');
        if (next === undefined) return;
        // The next stay in the same home: from the first night the first stay no longer holds (its
        // move-out, or the day it was cancelled), its earlier dates never before that either.
        const free = !model.cancelled ? model.moveOut : model.movedIn ? model.cancelledOn! : model.moveIn;
        const laterStay = { ...next, redates: next.redates.map((r) => ({ ...r, lead: Math.max(r.lead, next.lead) })) };
        const second = await bookedStay(laterStay, { home: stay.home, firstDay: later(plus(free, -next.lead), plus(new Date().toISOString().slice(0, 10), 1)) });
        const { seen: seenNext } = await check(second.stay, second.model, { entries: new Map(), timeline: [] }, 'the next stay booked');
        const first = await check(stay, model, closed.seen, 'the next stay booked');
        expect(first.totals, 'the first stay once the next is booked').toEqual(closed.totals);
        await closeout(second.stay, second.model, seenNext, 'the next stay closed out');
        await reconciles(second.stay, 'the end of the next stay');
      }),
      { numRuns: runs, seed, path: process.env.LEDGER_PROPERTY_PATH, endOnFailure: process.env.LEDGER_PROPERTY_SHRINK === undefined },
    ).finally(() => {
      if (process.env.LEDGER_PROPERTY_STATS) console.log(JSON.stringify(Object.fromEntries([...stats].sort()), null, 1));
    });
  });
});
