// Value sets of a housing request that the domains, the event definitions and the household's
// catalogues all name: kept below every folder of shared/ (this file imports nothing), so that an
// event definition or a catalogue takes the values without importing a domain module. The domains
// re-export them where their readers look (shared/claims/status.ts, shared/claims/values.ts,
// shared/placements/billing.ts).

/** The statuses of a request (`status_primary`), in lifecycle order; the moves between them: shared/claims/status.ts. */
export const statuses = [
  'housing_needs_collected',
  'housing_options_found',
  'options_sent',
  'awaiting_approval',
  'landlord_approval',
  'lease_execution',
  'lease_signed',
  'payment_setup',
  'booking_confirmed',
  'move_in_complete',
  'in_stay',
  'move_out_closeout',
] as const;

/** Who pays: rent (`rent_payer`), deposits (`deposit_payer`), one-off fees, pet rent and utilities (`fees_payer`). */
export const payers = ['carrier', 'tpa', 'policyholder'] as const;

/** Who pays a share, in the payer's words (the pages say these). */
export const payerWords: Record<(typeof payers)[number], string> = {
  carrier: 'the insurance carrier',
  tpa: 'the claims administrator',
  policyholder: 'the policyholder',
};
