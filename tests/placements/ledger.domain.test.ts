// The ledger's posting rules (shared/placements/ledger.ts) against a reference model written apart
// from them: random sequences of shortenings and extensions (each extension signed at its own
// monthly rate), posted one after the other as the commands post them, never editing an entry.
// After every step the entries add up to the model's price of the stay's nights as they stand: each
// night at the rate of the version that first signed it, each billing period's first n nights of a
// rate costing round(rate * n / days of the period).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chargesOf, extensionEntries, leaseCharges, reversalEntries, shorteningEntries, type Entry, type NewEntry } from '../../shared/placements/ledger.ts';
import type { PriceCents } from '../../shared/placements/pricing.ts';

const runs = Number(process.env.LEDGER_DOMAIN_RUNS ?? 500);
const seed = Number(process.env.LEDGER_DOMAIN_SEED ?? 20261125);

// ---- The model: dates as day numbers from move-in, months as the calendar has them ----

const moveIn = '2027-01-31';
const dayOf = (n: number) => new Date(Date.parse(`${moveIn}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
const indexOf = (iso: string) => Math.round((Date.parse(`${iso}T00:00:00Z`) - Date.parse(`${moveIn}T00:00:00Z`)) / 86_400_000);

/** Day number of move-in + k months: the same day of the month, or the month's last day when it has none. */
function monthStart(k: number): number {
  const [y, m, d] = moveIn.split('-').map(Number);
  const first = new Date(Date.UTC(y, m - 1 + k, 1));
  const days = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
  first.setUTCDate(Math.min(d, days));
  return indexOf(first.toISOString().slice(0, 10));
}

interface Model {
  /** The rate each night was first signed at, by night number; the stay is nights [0, end). */
  rates: number[];
  end: number;
}

/** What the stay's nights cost: per billing period, each run of nights of one rate priced by its prefixes. */
function modelPrice(model: Model): number {
  let total = 0;
  for (let k = 0; monthStart(k) < model.end; k++) {
    const start = monthStart(k);
    const days = monthStart(k + 1) - start;
    // The first month is charged whole (the model's stays never end inside it).
    const until = Math.min(model.end, start + days);
    for (let n = start; n < until; n++) {
      const rate = model.rates[n];
      total += Math.round((rate * (n + 1 - start)) / days) - Math.round((rate * (n - start)) / days);
    }
  }
  return total;
}

// ---- Driving the ledger's functions as the commands do ----

const prices = (rate: number) => ({ rentTier: rate, petRent: 0, utilities: 0, cleaningFee: 0, applicationFee: 0, petFee: 0, securityDeposit: 0, petDeposit: 0 }) as PriceCents;

/** The accounts the database derives for an entry of rent (no fees, deposits or money moved here). */
const rentAccounts = { debitAccount: 'payer_rent', creditAccount: 'landlord_rent' } as const;

function post(entries: Entry[], posted: NewEntry[]): void {
  for (const entry of posted) entries.push({ ...entry, ...rentAccounts, id: `e${entries.length}`, position: entries.length, postedAt: new Date(0), postedOn: '1970-01-01' });
}

const step = fc.oneof(
  fc.record({ kind: fc.constant('shorten' as const), to: fc.integer({ min: 32, max: 400 }) }),
  fc.record({ kind: fc.constant('extend' as const), to: fc.integer({ min: 36, max: 420 }), rate: fc.integer({ min: 50_000, max: 900_000 }) }),
);

describe('the ledger against a model of nights and prices', () => {
  it(`every night of the stay is charged once, at the rate that signed it (${runs} sequences, seed ${seed})`, { timeout: 600_000 }, () => {
    fc.assert(
      fc.property(fc.integer({ min: 35, max: 300 }), fc.integer({ min: 50_000, max: 900_000 }), fc.array(step, { maxLength: 8 }), (nights, rate, steps) => {
        const entries: Entry[] = [];
        post(entries, leaseCharges('lease', prices(rate), { moveIn, moveOut: dayOf(nights) }));
        const model: Model = { rates: Array.from({ length: nights }, () => rate), end: nights };
        // The lease's first month is billed whole: its nights past a short stay count as signed.
        for (let n = nights; n < monthStart(1); n++) model.rates[n] = rate;
        const sum = () => entries.reduce((total, e) => total + e.amountCents, 0);
        expect(sum()).toBe(modelPrice(model));
        steps.forEach((s, i) => {
          if (s.kind === 'shorten' && s.to < model.end) {
            post(entries, shorteningEntries(entries, dayOf(s.to)));
            model.end = s.to;
          } else if (s.kind === 'extend' && s.to > model.end) {
            post(entries, extensionEntries(entries, `addendum${i}`, prices(s.rate), moveIn, dayOf(model.end), dayOf(s.to)));
            for (let n = model.end; n < s.to; n++) model.rates[n] ??= s.rate;
            model.end = s.to;
          }
          expect(sum(), `after step ${i} (${s.kind} to ${s.to})`).toBe(modelPrice(model));
          // No charge holds a negative amount, and every adjustment names nights of the charge it adjusts.
          for (const charge of chargesOf(entries)) expect(Math.min(charge.net.rent, charge.net.fees)).toBeGreaterThanOrEqual(0);
          for (const e of entries.filter((x) => x.adjusts)) {
            const target = entries.find((x) => x.id === e.adjusts)!;
            expect(e.nights!.from >= target.nights!.from && e.nights!.to <= target.nights!.to && e.nights!.from < e.nights!.to).toBe(true);
          }
        });
      }),
      { numRuns: runs, seed },
    );
  });
});

describe('a cancellation before move-in after goodwill', () => {
  // A stay of 100 nights whose fees are a pet rent of 0.12 and utilities of 400.00 a month: goodwill on
  // the fees is given on the part as a whole, and its release names the part's first entry (the pet rent).
  const withFees = { ...prices(310_000), petRent: 12, utilities: 40_000 } as PriceCents;
  const goodwill = (entries: Entry[], cents: number): NewEntry => {
    const first = entries.find((e) => e.part === 'fees')!;
    return { ...first, kind: 'release', cause: 'goodwill', adjusts: first.id, postedFor: null, nights: null, basis: null, line: 'Goodwill', amountCents: -cents, refundRequestId: 'request' };
  };
  const stay = () => {
    const entries: Entry[] = [];
    post(entries, leaseCharges('lease', withFees, { moveIn, moveOut: dayOf(100) }));
    return entries;
  };

  it('reverses what each part still holds, the goodwill counted once, though it is more than the entry its release names', () => {
    const entries = stay();
    post(entries, [goodwill(entries, 7_508)]);
    post(entries, reversalEntries(entries, 'cancelled'));
    // Before: the pet rent's reversal absorbed the goodwill and the utilities were reversed whole, so the fees charged -74.96.
    for (const c of chargesOf(entries)) expect(c.net).toEqual({ rent: 0, deposit: 0, fees: 0 });
  });

  it('a part goodwill took below nothing (nights released after it) is brought back to nothing by reversing that much of the goodwill', () => {
    const entries = stay();
    post(entries, [goodwill(entries, 30_000)]);
    post(entries, shorteningEntries(entries, dayOf(5)));
    const first = chargesOf(entries).find((c) => c.chargeType === 'initial')!;
    expect(first.net.fees).toBeLessThan(0);
    const reversed = reversalEntries(entries, 'cancelled');
    const gift = entries.find((e) => e.cause === 'goodwill')!;
    expect(reversed.filter((e) => e.adjusts === gift.id).map((e) => e.amountCents)).toEqual([-first.net.fees]);
    post(entries, reversed);
    for (const c of chargesOf(entries)) expect(c.net).toEqual({ rent: 0, deposit: 0, fees: 0 });
  });
});
