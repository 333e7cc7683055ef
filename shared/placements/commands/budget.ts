import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../db/tenant.ts';
import { budgetReview, price, type Approval, type BudgetReview } from '../pricing.ts';
import type { ClaimRow } from '../../claims/repository.ts';
import { signedStay } from '../signed-prices.ts';
import { budgetTotals, ledgerOf } from '../stay-money.ts';
import { inRequest } from '../unit-of-work.ts';
import { currentLease, findPlacement, homeForRequest, readApproval, saveApproval, type HomeForRequest, type PlacementRow } from '../repository.ts';

// The budget review of a home on a request (GET budget) and the carrier's approval (POST budget,
// or POST options with approve_budget). Figures come from shared/placements/pricing.ts, the same
// function the checkout prices with.

/** The review of `home` for `claim` as it stands in this transaction. */
export async function reviewOf(tx: Tx, claim: ClaimRow, home: HomeForRequest): Promise<BudgetReview> {
  const [placement, approval] = await Promise.all([findPlacement(tx, claim.id, home.id), readApproval(tx, claim.id, home.id)]);
  const shown: Approval = {
    budget_approved: approval?.approved ?? false,
    approved_at: approval?.approved_at?.toISOString() ?? null,
    on_request: placement !== null && placement.option_status !== 'cancelled',
  };
  return (placement && await signedReview(tx, claim, placement, shown)) ?? liveReview(claim, home, placement, shown);
}

/**
 * Once both have signed, the review is what the checkout charges: the signed version's frozen terms
 * over the dates it was signed for, its totals read from the charges its signing posted to the
 * stay's ledger (../stay-money.ts; a later
 * shortening releases nights, never prices the kept ones again; the statement shows what is charged
 * now). Null before then, and for a version issued before terms were recorded
 * (its checkout prices from the home as it stands, as the live review does).
 */
async function signedReview(tx: Tx, claim: ClaimRow, placement: PlacementRow, approval: Approval): Promise<BudgetReview | null> {
  const lease = await currentLease(tx, placement, { lock: false });
  if (lease?.status !== 'fully_signed' || !lease.terms) return null;
  const [{ prices }, { entries }] = await Promise.all([signedStay(tx, claim, placement, lease), ledgerOf(tx, placement)]);
  // The totals are what the lease's signing posted (a stay signed before the ledger existed and not
  // posted yet shows its signed prices until its job or its next change posts them).
  const signed = entries.filter((e) => e.postedFor === lease.id && e.kind === 'charge');
  return budgetReview(lease.terms.home, signed.length > 0 ? { ...prices, ...budgetTotals(signed, prices.aleLimit) } : prices, approval, { basis: 'signed_terms', lease_id: lease.id });
}

/** Before both signatures: the home's rates as they stand, over the placement's dates once set. */
function liveReview(claim: ClaimRow, home: HomeForRequest, placement: PlacementRow | null, approval: Approval): BudgetReview {
  const dates = placement?.move_in_date && placement.move_out_date
    ? { move_in: placement.move_in_date, move_out: placement.move_out_date }
    : null;
  return budgetReview(home, price(home, claim, dates), approval, { basis: 'live_rates', lease_id: null });
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
