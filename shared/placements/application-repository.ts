import type { Tx } from '../db/client.ts';
import type { ApplicationStatus } from './states.ts';

// The applications on a provider's homes, as the landlord reads them (app.provider_applications, the
// landlord-applications migration): the placement rows belong to the carrier, so the provider reads
// them through a function that answers only for its own homes in its environment, with what the
// household needs and never its contact details.

export interface ApplicationRow {
  id: string;
  carrier_org_id: string;
  claim_id: string;
  reference: string;
  property_id: string;
  application_status: ApplicationStatus;
  applied_at: Date;
  application_approved_at: Date | null;
  application_declined_at: Date | null;
  application_decline_reason: string | null;
  target_move_in: string;
  est_length_months: number;
  adults: number;
  children: number;
  has_pets: boolean;
  number_of_pets: number | null;
  proposed_move_in: string | null;
  proposed_move_out: string | null;
}

/** One page of applications, newest first, after the one named by `after`; fetches limit + 1 rows. */
export function providerApplications(tx: Tx, query: { status: ApplicationStatus | null; limit: number; after: string | null }) {
  return tx<ApplicationRow[]>`select * from app.provider_applications(${query.status}, ${query.limit + 1}, ${query.after})`;
}

export async function providerApplication(tx: Tx, id: string): Promise<ApplicationRow | null> {
  const [row] = await tx<ApplicationRow[]>`select * from app.provider_applications(null, 1, null, ${id})`;
  return row ?? null;
}
