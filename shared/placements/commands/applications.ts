import { withTenant, type Tenant, type Caller } from '../../db/tenant.ts';
import { notFound } from '../../domain-errors.ts';
import { cursorRowId, invalidCursor, rowPage } from '../../db/paging.ts';
import { isUuid } from '../../ids.ts';
import { providerApplication, providerApplications, type ApplicationRow } from '../application-repository.ts';
import type { ApplicationStatus } from '../states.ts';
import { inPlacementById } from '../unit-of-work.ts';
import { landlordAnswers } from './answers.ts';

// The landlord's side of the send flow through the provider API: the applications households made
// for the provider's homes, and the answer. The answer runs in the carrier's tenant transaction by
// the same command as the sandbox landlord helper (./answers.ts), so the two cannot drift.

/** An application as the landlord reads it. */
export function renderApplication(row: ApplicationRow) {
  return {
    id: row.id,
    reference: row.reference,
    property_id: row.property_id,
    status: ({ applied: 'pending', approved_to_lease: 'approved', declined: 'declined', not_applied: 'pending' } as const)[row.application_status],
    applied_at: row.applied_at.toISOString(),
    decided_at: (row.application_approved_at ?? row.application_declined_at)?.toISOString() ?? null,
    decline_reason: row.application_decline_reason,
    household: { adults: row.adults, children: row.children, has_pets: row.has_pets, number_of_pets: row.number_of_pets },
    target_move_in: row.target_move_in,
    est_length_months: row.est_length_months,
    proposed_dates: row.proposed_move_in ? { move_in: row.proposed_move_in, move_out: row.proposed_move_out } : null,
  };
}

const statusFilter: Record<'pending' | 'approved' | 'declined', ApplicationStatus> = { pending: 'applied', approved: 'approved_to_lease', declined: 'declined' };

export async function listApplications(caller: Caller, query: { limit: number; cursor?: string; status?: keyof typeof statusFilter }) {
  const after = cursorRowId(query.cursor) ?? null;
  const rows = await withTenant(caller, async (tx) => {
    if (after && !(await providerApplication(tx, after))) throw invalidCursor();
    return providerApplications(tx, { status: query.status ? statusFilter[query.status] : null, limit: query.limit, after });
  });
  return rowPage(rows, query.limit, renderApplication);
}

export type ApplicationDecision = { decision: 'approve' } | { decision: 'decline'; reason: string };

/**
 * The landlord's answer: the application is found as the provider, then answered in the carrier's
 * tenant transaction (approve_application or decline_application of the landlord's answers).
 * 409 already_answered when it was approved or declined before.
 */
export async function answerApplication(caller: Caller, id: string, answer: ApplicationDecision) {
  const found = isUuid(id) ? await withTenant(caller, (tx) => providerApplication(tx, id)) : null;
  if (!found) throw notFound('application');
  const carrier: Tenant = { orgId: found.carrier_org_id, environment: caller.environment };
  await inPlacementById(carrier, found.id, ({ tx, claim, placement }) =>
    landlordAnswers(tx, claim, placement, answer.decision === 'approve' ? { action: 'approve_application' } : { action: 'decline_application', reason: answer.reason }));
  return renderApplication((await withTenant(caller, (tx) => providerApplication(tx, id)))!);
}
