// What a charge on a provider's own payment-processor account leaves the provider.
//
// Fee model (documented in docs/properties.md):
// - the service's platform fee is taken from rent only: deposits and one-off fees (cleaning,
//   application, pet) are passed through without it;
// - the card processor's fee is taken on the whole charge, because the charge is made directly on
//   the provider's account and the processor bills that account;
// - every fee is rounded to the nearest cent, half up.

/** Platform fee: 8% of the rent in the charge. */
export const platformFeeRateBps = 800;
/** Card processing: 2.9% of the whole charge plus 30 cents. */
export const processingFeeRateBps = 290;
export const processingFeeFixedCents = 30;

export interface ChargeParts {
  rentCents: number;
  depositCents?: number;
  /** One-off fees (cleaning, application, pet) in the charge. */
  feesCents?: number;
}

export interface ChargeSplit {
  grossCents: number;
  platformFeeCents: number;
  processingFeeCents: number;
  netCents: number;
}

const share = (cents: number, bps: number) => Math.round((cents * bps) / 10_000);

/** The platform fee on an amount of rent: what a charge takes, and what a refund of that rent returns. */
export const platformFeeOf = (rentCents: number) => share(rentCents, platformFeeRateBps);

/** Splits a charge into gross, the two fees and the provider's net. A zero charge costs nothing. */
export function splitCharge({ rentCents, depositCents = 0, feesCents = 0 }: ChargeParts): ChargeSplit {
  for (const [name, value] of Object.entries({ rentCents, depositCents, feesCents })) {
    if (!Number.isInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer of cents`);
  }
  const grossCents = rentCents + depositCents + feesCents;
  const platformFeeCents = platformFeeOf(rentCents);
  const processingFeeCents = grossCents === 0 ? 0 : share(grossCents, processingFeeRateBps) + processingFeeFixedCents;
  return { grossCents, platformFeeCents, processingFeeCents, netCents: grossCents - platformFeeCents - processingFeeCents };
}
