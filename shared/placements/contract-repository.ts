import { db, type Tx } from '../db/client.ts';
import type { LeaseTerms } from './pricing.ts';
import type { LeaseRow } from './lease.ts';
import type { LeaseStatus } from './states.ts';
import type { OptionRow } from './option-repository.ts';

// The SQL of contract versions (app.lease_agreements): leases and their addenda, written, linked
// when superseded, numbered and put in effect. Everything but leaseByProviderRef (which finds the
// tenant of a callback) runs inside withTenant.

/**
 * The placement's current contract version, locked (lock 4 of unit-of-work.ts: after the request and
 * the placement) unless `lock` is false (a read, which takes no lock).
 */
export async function currentLease(tx: Tx, placement: OptionRow, options: { lock?: boolean } = {}): Promise<LeaseRow | null> {
  if (!placement.current_lease_id) return null;
  const [row] = await tx<LeaseRow[]>`
    select * from app.lease_agreements where id = ${placement.current_lease_id} ${options.lock ?? true ? tx`for update` : tx``}`;
  return row ?? null;
}

export async function insertLease(
  tx: Tx,
  placement: OptionRow,
  lease: Pick<LeaseRow, 'move_in_date' | 'move_out_date' | 'signer_name' | 'signer_email' | 'issued_by' | 'template'> & { version: number; terms: LeaseTerms },
): Promise<LeaseRow> {
  const [row] = await tx<LeaseRow[]>`
    insert into app.lease_agreements (org_id, environment, claim_option_id, claim_id, property_id, version, move_in_date,
                                      move_out_date, signer_name, signer_email, issued_by, template, terms)
    values (app.current_org(), app.current_env(), ${placement.id}, ${placement.claim_id}, ${placement.property_id}, ${lease.version},
            ${lease.move_in_date}, ${lease.move_out_date}, ${lease.signer_name}, ${lease.signer_email}, ${lease.issued_by}, ${lease.template},
            ${tx.json(lease.terms as never)})
    returning *`;
  await tx`
    update app.claim_options set current_lease_id = ${row.id}, lease_status = ${row.status},
           move_in_date = ${row.move_in_date}, move_out_date = ${row.move_out_date}
     where id = ${placement.id}`;
  return row;
}

export async function linkSuperseded(tx: Tx, oldId: string, newId: string): Promise<void> {
  await tx`update app.lease_agreements set superseded_by = ${newId} where id = ${oldId}`;
}

/** The placement's addendum not yet in effect (an extension waiting for signatures or payment), locked; or null. */
export async function openAddendum(tx: Tx, placementId: string): Promise<LeaseRow | null> {
  const [row] = await tx<LeaseRow[]>`
    select * from app.lease_agreements
     where claim_option_id = ${placementId} and kind = 'addendum' and effective_at is null and status not in ('superseded', 'withdrawn')
     for update`;
  return row ?? null;
}

/** The version number of each contract version of the placement, by id. */
export async function versionNumbers(tx: Tx, placementId: string): Promise<Map<string, number>> {
  const rows = await tx<{ id: string; version: number }[]>`select id, version from app.lease_agreements where claim_option_id = ${placementId}`;
  return new Map(rows.map((r) => [r.id, r.version]));
}

/** Every addendum of the placement (its extensions, in any state), newest first. */
export function addendaOf(tx: Tx, placementId: string): Promise<LeaseRow[]> {
  return tx<LeaseRow[]>`select * from app.lease_agreements where claim_option_id = ${placementId} and kind = 'addendum' order by version desc`;
}

/** Writes an extension's addendum: the added nights [moveIn, moveOut) of the signed lease, with its terms. */
export async function insertAddendum(
  tx: Tx,
  placement: OptionRow,
  lease: LeaseRow,
  addendum: { version: number; moveIn: string; moveOut: string; terms: LeaseTerms },
): Promise<LeaseRow> {
  const [row] = await tx<LeaseRow[]>`
    insert into app.lease_agreements (org_id, environment, claim_option_id, claim_id, property_id, version, move_in_date, move_out_date,
                                      signer_name, signer_email, issued_by, template, terms, kind, extends_lease_id)
    values (app.current_org(), app.current_env(), ${placement.id}, ${placement.claim_id}, ${placement.property_id}, ${addendum.version},
            ${addendum.moveIn}, ${addendum.moveOut}, ${lease.signer_name}, ${lease.signer_email}, 'extension', ${lease.template},
            ${tx.json(addendum.terms as never)}, 'addendum', ${lease.id})
    returning *`;
  return row;
}

/** The highest version number of the placement's contracts (leases and addenda share the numbering). */
export async function latestVersion(tx: Tx, placementId: string): Promise<number> {
  const [row] = await tx<{ version: number }[]>`select coalesce(max(version), 0)::integer as version from app.lease_agreements where claim_option_id = ${placementId}`;
  return row.version;
}

/** An addendum's payment cleared: it takes effect, the stay takes its move-out, and its nights are booked. */
export async function putAddendumInEffect(tx: Tx, placement: OptionRow, addendum: LeaseRow): Promise<LeaseRow | null> {
  const [row] = await tx<LeaseRow[]>`
    update app.lease_agreements set effective_at = clock_timestamp()
     where id = ${addendum.id} and kind = 'addendum' and status = 'fully_signed' and effective_at is null
    returning *`;
  if (!row) return null;
  await tx`update app.claim_options set move_out_date = ${row.move_out_date} where id = ${placement.id}`;
  await tx`select app.book_holds(${row.id}, app.current_env())`;
  return row;
}

export interface CallbackLease {
  org_id: string;
  environment: 'live' | 'sandbox';
  claim_id: string;
  property_id: string;
  status: LeaseStatus;
  /** Whether it is the placement's current version, or its open extension's addendum (only those act). */
  current: boolean;
}

/**
 * The contract an e-signature callback names by the provider's reference, across tenants: the
 * callback carries no key, so this read finds the tenant rather than running inside it.
 */
export async function leaseByProviderRef(providerRef: string): Promise<CallbackLease | null> {
  const [lease] = await db()<CallbackLease[]>`
    select l.org_id, l.environment, l.claim_id, l.property_id, l.status,
           h.current_lease_id = l.id or (l.kind = 'addendum' and l.effective_at is null and l.status not in ('superseded', 'withdrawn')) as current
      from app.lease_agreements l join app.claim_options h on h.id = l.claim_option_id
     where l.provider_ref = ${providerRef}`;
  return lease ?? null;
}
