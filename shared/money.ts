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

/** Whether an amount in major units is expressible in whole cents. */
export function isWholeCents(amount: number): boolean {
  return Math.abs(amount * 100 - Math.round(amount * 100)) < 1e-6;
}
