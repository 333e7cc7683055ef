import type { Tx } from '../db/client.ts';
import type { BudgetReview } from './pricing.ts';

// The SQL of the carrier's budget approvals (app.budget_approvals) and of whether it can be billed.

export interface ApprovalRow {
  approved: boolean;
  approved_at: Date | null;
  /** The review the decision was made on, as it stood then. */
  figures: BudgetReview;
}

export async function readApproval(tx: Tx, claimId: string, propertyId: string): Promise<ApprovalRow | null> {
  const [row] = await tx<ApprovalRow[]>`
    select approved, approved_at, figures from app.budget_approvals where claim_id = ${claimId} and property_id = ${propertyId}`;
  return row ?? null;
}

/** Records (or withdraws) the budget approval with the figures it concerns. Approving again keeps the first approved_at. */
export async function saveApproval(tx: Tx, claimId: string, propertyId: string, approved: boolean, figures: BudgetReview): Promise<ApprovalRow> {
  const [row] = await tx<ApprovalRow[]>`
    insert into app.budget_approvals (org_id, environment, claim_id, property_id, approved, approved_at, figures)
    values (app.current_org(), app.current_env(), ${claimId}, ${propertyId}, ${approved}, ${approved ? new Date() : null}, ${tx.json(figures as never)})
    on conflict (claim_id, property_id) do update
       set approved = excluded.approved,
           approved_at = case when excluded.approved then coalesce(app.budget_approvals.approved_at, excluded.approved_at) end,
           figures = excluded.figures, updated_at = clock_timestamp()
    returning approved, approved_at, figures`;
  return row;
}

/** Whether the caller's organisation is linked to a billing account (sandbox: always). */
export async function hasBillingAccount(tx: Tx): Promise<boolean> {
  const [row] = await tx<{ linked: boolean }[]>`
    select app.current_env() = 'sandbox' or exists (select 1 from app.carrier_billing_accounts) as linked`;
  return row.linked;
}
