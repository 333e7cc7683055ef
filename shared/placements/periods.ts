// The billing periods of a stay: monthly from move-in, the last one to the day before move-out,
// and the share of a full period a short last one uses. One definition for the budget review
// (./pricing.ts) and the stay's ledger (./ledger.ts), so the two count months the same way.

const day = 86_400_000;
const toDate = (iso: string) => new Date(`${iso}T00:00:00Z`);
const toIso = (date: Date) => date.toISOString().slice(0, 10);

/** The same day of the month `months` later, clamped to the month's end (01-31 + 1 month = 02-28). */
export function addMonths(iso: string, months: number): string {
  const [y, m, d] = iso.split('-').map(Number);
  const target = new Date(Date.UTC(y, m - 1 + months, 1));
  const last = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d, last));
  return toIso(target);
}

export const daysBetween = (from: string, to: string) => Math.round((toDate(to).getTime() - toDate(from).getTime()) / day);

export interface BillingPeriod {
  index: number;
  start: string;
  /** Inclusive. */
  end: string;
  /** Days used over the days of the full period: 1 except a short last period. */
  share: { used: number; full: number };
}

/** The monthly periods of a stay from move-in to the day before move-out. */
export function billingPeriods(moveIn: string, moveOut: string): BillingPeriod[] {
  const periods: BillingPeriod[] = [];
  for (let k = 0; ; k++) {
    const start = addMonths(moveIn, k);
    if (start >= moveOut) break;
    const fullEnd = addMonths(moveIn, k + 1);
    const end = fullEnd < moveOut ? fullEnd : moveOut;
    periods.push({
      index: k,
      start,
      end: toIso(new Date(toDate(end).getTime() - day)),
      share: { used: daysBetween(start, end), full: daysBetween(start, fullEnd) },
    });
  }
  return periods;
}

/**
 * A monthly amount as a period is charged it: the first period in full (the first payment is a
 * whole month), a later one for the share of its days used, rounded to the cent.
 */
export const monthlyPart = (cents: number, period: BillingPeriod) =>
  period.index === 0 ? cents : Math.round((cents * period.share.used) / period.share.full);
