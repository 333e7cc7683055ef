import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../http/context.ts';
import { budgetReview, price, type BudgetReview } from '../pricing.ts';
import type { ClaimRow } from '../../claims/repository.ts';
import { inRequest } from '../unit-of-work.ts';
import { findPlacement, homeForRequest, readApproval, saveApproval, type HomeForRequest } from '../repository.ts';

// The budget review of a home on a request (GET budget) and the carrier's approval (POST budget,
// or POST options with approve_budget). Figures come from shared/placements/pricing.ts, the same
// function the checkout prices with.

/** The review of `home` for `claim` as it stands in this transaction. */
export async function reviewOf(tx: Tx, claim: ClaimRow, home: HomeForRequest): Promise<BudgetReview> {
  const [placement, approval] = await Promise.all([findPlacement(tx, claim.id, home.id), readApproval(tx, claim.id, home.id)]);
  const dates = placement?.move_in_date && placement.move_out_date
    ? { move_in: placement.move_in_date, move_out: placement.move_out_date }
    : null;
  return budgetReview(home, price(home, claim, dates), {
    budget_approved: approval?.approved ?? false,
    approved_at: approval?.approved_at?.toISOString() ?? null,
    on_request: placement !== null && placement.option_status !== 'cancelled',
  });
}

export async function readBudget(caller: Caller, reference: string, propertyId: string): Promise<BudgetReview> {
  return inRequest(caller, reference, async ({ tx, claim }) => reviewOf(tx, claim, await homeForRequest(tx, claim.id, propertyId)), { lock: false });
}

/** Records or withdraws the approval and returns the figures it concerns (the review after the decision). */
export async function approveBudget(tx: Tx, claim: ClaimRow, home: HomeForRequest, approved: boolean): Promise<BudgetReview> {
  const before = await reviewOf(tx, claim, home);
  const saved = await saveApproval(tx, claim.id, home.id, approved, before);
  return { ...before, approval: { ...before.approval, budget_approved: saved.approved, approved_at: saved.approved_at?.toISOString() ?? null } };
}

export async function decideBudget(caller: Caller, reference: string, propertyId: string, approved: boolean): Promise<BudgetReview> {
  return inRequest(caller, reference, async ({ tx, claim }) => approveBudget(tx, claim, await homeForRequest(tx, claim.id, propertyId), approved));
}
