// Money is integer cents in the database; the API speaks major units (dollars) with at most two
// decimals. These two conversions are the only place where the two meet.

/** Major units to cents, rounding away binary-fraction noise (19.99 * 100 = 1998.9999...). */
export function toCents(amount: number): number {
  return Math.round(amount * 100);
}

/** Cents to major units. */
export function fromCents(cents: number): number {
  return cents / 100;
}

/** Cents to major units, keeping an absent amount absent. */
export function amountOrNull(cents: number | null | undefined): number | null {
  return cents == null ? null : fromCents(Number(cents));
}

/**
 * Whether an amount in major units is written with at most two decimals: exactly the number that its
 * two-decimal rendering reads back as (19.99 yes; 1e-9 and 0.30000000000000004 no, which a tolerance
 * would round to 0 or to a different amount).
 */
export function isWholeCents(amount: number): boolean {
  return Number.isFinite(amount) && Number(amount.toFixed(2)) === amount;
}
