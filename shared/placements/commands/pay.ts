import type { Tx } from '../../db/client.ts';
import { payerWords, type ChargeLine, type ChargeType, type Payer } from '../billing.ts';
import { conflict, DomainError, missing, refused } from '../../domain-errors.ts';
import { assertLinkLease, type PayLink } from '../pay-link.ts';
import { paymentsPort } from '../ports/index.ts';
import type { CheckoutRequest } from '../ports/types.ts';
import type { ClaimRow } from '../../claims/repository.ts';
import { NotConfigured, ProviderError } from '../ports/provider.ts';
import { log } from '../../log.ts';
import { abandonCheckout, insertPending, isBooked, isReplacedCheckout, openCheckout, paymentsOf, recordCheckout } from '../money-repository.ts';
import { withTenant } from '../../db/tenant.ts';
import { payable, paySandbox, requireShown, type ShownShare } from './payments.ts';
import { homeOnRequest, type PlacementRow } from '../repository.ts';
import { inPlacementById } from '../unit-of-work.ts';
import { postSignedVersions } from '../stay-ledger.ts';

// The pay page's data and its payment, in the tenant transaction of the request the link names:
// the same commands as the sandbox `payment` helper (sandbox) and the checkout on the landlord's
// account (live). The link's organisation and environment are the tenant, so a link can never
// reach another organisation's or environment's placement.

/** A line of what is due: its English label (the API's), and what the page words it from (the ledger's line name, which rent). */
export type DueLine = Pick<ChargeLine, 'label' | 'cents' | 'line' | 'rent'>;

/** One payer's share of what is due now. */
export interface DueShare {
  payer: Payer;
  lines: DueLine[];
  totalCents: number;
  /** Whether this link pays it (its payer's share); the carrier's link shows the others read-only. */
  own: boolean;
}

/** What the payer sees for one placement. */
export interface PayView {
  environment: 'live' | 'sandbox';
  /** Whose link it is: the page takes this payer's share only. */
  payer: Payer;
  reference: string;
  home: { name: string; address: string };
  /** Who is paid: the landlord's organisation (null: not read, the page says the landlord). */
  payee: string | null;
  /** The request's household_language (BCP 47), or null: the household's link reads in it. */
  language: string | null;
  currency: string;
  /**
   * due: something can be paid now; not_unlocked: the lease is not fully signed yet;
   * settled: nothing is due right now; unavailable: the landlord cannot take charges, or the
   * placement was cancelled.
   */
  state: 'due' | 'not_unlocked' | 'settled' | 'unavailable';
  /** What is due now, when state is due: one share per payer, each paid on its own (on the carrier's link every share, else the payer's own). */
  due?: { chargeType: ChargeType; periodStart: string; periodEnd: string; shares: DueShare[] };
  /**
   * Payments already made on this placement, newest last; `payer` is whose share it was (null before
   * shares); `duplicate` a second charge the service refunded.
   */
  paid: { chargeType: ChargeType; periodStart: string | null; duplicate: boolean; cents: number; at: string; status: 'paid' | 'refunded'; payer: Payer | null }[];
  /** Whether the stay is booked (the whole first payment cleared). */
  booked: boolean;
  /** The outcome of the latest charge attempt as the server recorded it (the page's banner comes from this, never from the address). */
  latest: 'succeeded' | 'failed' | null;
  /** Why, for the states other than due: the page words it (other: `detail`, the service's English reason). */
  reason?: 'cancelled' | 'settled' | 'othersPay' | 'lease_not_signed' | 'charges_disabled' | 'other';
  detail?: string;
}

/** A form of the page: the share it showed (refused once that is no longer what is due). */
export interface PaySubmission extends ShownShare {
  /** Sandbox only: the outcome the payer chose. */
  outcome?: 'succeeded' | 'failed';
}

export interface PayActions {
  /** What the page shows for a verified link; null when the link's placement is not found. */
  view(link: PayLink): Promise<PayView | null>;
  /** Pays what is due now: sandbox settles at once; live returns the checkout to redirect to. */
  pay(link: PayLink, submission: PaySubmission, returnUrl: string): Promise<{ result: 'succeeded' | 'failed' } | { redirect: string }>;
}

/**
 * The link's placement in its tenant's transaction (the link's organisation and environment), or
 * null when it is gone. Paying locks it; a cancelled one pays only what its stay still owes (see
 * payable); the view reads without locks. A link issued under another contract version is refused
 * (PayLinkRejected replaced) either way.
 */
function inLinkedPlacement<T>(link: PayLink, lock: boolean, work: (tx: Tx, claim: ClaimRow, placement: PlacementRow) => Promise<T>): Promise<T | null> {
  const tenant = { orgId: link.orgId, environment: link.environment };
  return inPlacementById(tenant, link.placementId, ({ tx, claim, placement }) => {
    assertLinkLease(link, placement.current_lease_id);
    return work(tx, claim, placement);
  }, { lock, cancelled: 'include' });
}

/** The refusals the page words plainly, never by a state's name; another is the service's own reason. */
const plainReasons = ['lease_not_signed', 'charges_disabled'] as const;

async function view(link: PayLink): Promise<PayView | null> {
  return inLinkedPlacement(link, false, async (tx, claim, placement) => {
    const [home, payments, booked] = await Promise.all([homeOnRequest(tx, claim.id, placement.property_id), paymentsOf(tx, placement.id), isBooked(tx, placement.id)]);
    // The latest outcome a payer saw at the processor: not a checkout still open, nor one the service replaced.
    const last = payments.filter((p) => p.status !== 'pending' && !isReplacedCheckout(p)).at(-1);
    const base = {
      latest: last ? (last.status === 'failed' ? ('failed' as const) : ('succeeded' as const)) : null,
      environment: link.environment,
      payer: link.payer,
      booked,
      reference: claim.claim_ref,
      home: { name: home!.name ?? 'Your home', address: `${home!.address}, ${home!.city}, ${home!.state}` },
      payee: null,
      language: claim.household_language,
      currency: home!.currency,
      paid: payments
        .filter((p) => p.paid_at !== null)
        .map((p) => ({ chargeType: p.charge_type, periodStart: p.period_start, duplicate: p.duplicate_of !== null, cents: Number(p.gross_cents), at: p.paid_at!.toISOString(), status: p.status === 'refunded' ? ('refunded' as const) : ('paid' as const), payer: p.payer })),
    };
    const cancelled = { ...base, state: 'unavailable' as const, reason: 'cancelled' as const };
    try {
      const state = await payable(tx, claim, placement);
      const payee = { ...base, payee: state.payee.name, currency: state.currency };
      if (!state.due) return { ...payee, state: 'settled' as const, reason: 'settled' as const };
      const { charge } = state.due;
      // The carrier's link shows every share (the others read-only); another payer's, its own alone.
      const shares = state.due.shares.filter((share) => link.payer === 'carrier' || share.payer === link.payer);
      if (shares.length === 0) return { ...payee, state: 'settled' as const, reason: 'othersPay' as const };
      return {
        ...payee,
        state: 'due' as const,
        due: {
          chargeType: charge.chargeType,
          periodStart: charge.periodStart,
          periodEnd: charge.periodEnd,
          shares: shares.map((share) => ({ payer: share.payer, lines: share.lines, totalCents: share.split.grossCents, own: share.payer === link.payer })),
        },
      };
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      // A cancelled placement with nothing of its stay left to pay.
      if (error.code === 'not_on_request') return cancelled;
      const notUnlocked = error.code === 'lease_not_signed';
      const plain = plainReasons.find((code) => code === error.code);
      return { ...base, state: notUnlocked ? ('not_unlocked' as const) : ('unavailable' as const), ...(plain ? { reason: plain } : { reason: 'other' as const, detail: error.message }) };
    }
  });
}

/** What paying does once the placement is checked: settled (sandbox), back to an open checkout, or a new checkout to create. */
type PayStep = { result: 'succeeded' | 'failed' } | { reuse: string } | { attemptId: string; checkout: CheckoutRequest };

async function pay(link: PayLink, submission: Parameters<PayActions['pay']>[1], returnUrl: string) {
  // A link pays its own payer's share only, whatever the form says.
  if (submission.payer !== link.payer) {
    throw refused('forbidden', `This link pays only ${payerWords[link.payer]}'s share; ${payerWords[submission.payer]} pays its own from its own link.`);
  }
  // Live without a processor: refused before anything is recorded (NotConfigured names the setting).
  if (link.environment === 'live') paymentsPort('live');
  const outcome = await inLinkedPlacement(link, true, async (tx, claim, placement): Promise<PayStep> => {
    await postSignedVersions(tx, claim, placement);
    if (link.environment === 'sandbox') {
      const [payment] = await paySandbox(tx, claim, placement, submission.outcome ?? 'succeeded', submission);
      return { result: payment.status === 'failed' ? ('failed' as const) : ('succeeded' as const) };
    }
    const state = await payable(tx, claim, placement);
    const { shares: [due] } = requireShown(state, submission);
    if (!state.payee.processor_account_id) {
      throw conflict('charges_disabled', "The landlord's payment account is not connected yet; nothing can be paid until the landlord finishes setup.");
    }
    // Live checkout: a direct charge on the landlord's account, opened as a pending payment (the
    // attempt) that the processor's notification settles. A second submission while the attempt is
    // open (two tabs, a retry) goes to the same checkout; one that can no longer be paid as opened
    // (close to expiry, another amount or lease) is closed and replaced. The processor is called
    // after the transaction, so no lock is held while it answers.
    const now = Date.now();
    let attempt = await openCheckout(tx, placement.id, due.periodStart, due.payer);
    if (attempt && (Number(attempt.gross_cents) !== due.split.grossCents || attempt.lease_agreement_id !== state.lease.id)) {
      await abandonCheckout(tx, attempt.id, 'amount_changed');
      attempt = null;
    } else if (attempt && attempt.checkout_expires_at!.getTime() - now < checkoutReuseMarginMs) {
      await abandonCheckout(tx, attempt.id, 'checkout_expired');
      attempt = null;
    }
    if (attempt?.checkout_url) return { reuse: attempt.checkout_url };
    attempt ??= await insertPending(tx, { payee: state.payee, placement, leaseId: state.lease.id, charge: due, currency: state.currency }, new Date(now + checkoutTtlMs));
    return { attemptId: attempt.id, checkout: {
      connectedAccount: state.payee.processor_account_id,
      amountCents: due.split.grossCents,
      currency: state.currency,
      applicationFeeCents: due.split.platformFeeCents,
      description: `${due.title}: ${claim.claim_ref}`,
      successUrl: `${returnUrl}?result=processing`,
      cancelUrl: `${returnUrl}?result=cancelled`,
      expiresAt: attempt.checkout_expires_at!,
      metadata: {
        environment: link.environment,
        org_id: link.orgId,
        placement_id: placement.id,
        payment_id: attempt.id,
        lease_id: state.lease.id,
        charge_type: due.chargeType,
        payer: due.payer,
        period_start: due.periodStart,
        period_end: due.periodEnd,
        rent_cents: String(due.rentCents),
        deposit_cents: String(due.depositCents),
        fees_cents: String(due.feesCents),
      },
      // One checkout per attempt: a retry of the call after a timeout gets the same checkout back.
      idempotencyKey: `checkout:${attempt.id}`,
    } satisfies CheckoutRequest };
  });
  if (!outcome) throw missing('not_found', 'This link does not lead to a placement that can be paid.');
  if ('result' in outcome) return { result: outcome.result };
  if ('reuse' in outcome) return { redirect: outcome.reuse };
  let checkout;
  try {
    checkout = await paymentsPort('live').createCheckout(outcome.checkout);
  } catch (error) {
    // No checkout to send the payer to (a wrong key, the processor down): the attempt is closed at
    // once, so no payment is left pending that nothing would ever settle. The payer tries again.
    await withTenant(link, (tx) => abandonCheckout(tx, outcome.attemptId, 'checkout_not_opened'));
    if (error instanceof NotConfigured) throw error;
    log.warn('checkout not opened', { payment_id: outcome.attemptId, error: (error as Error).message });
    throw new ProviderError('The payment processor could not be reached.');
  }
  await withTenant(link, (tx) => recordCheckout(tx, outcome.attemptId, checkout));
  return { redirect: checkout.url };
}

/** How long a checkout takes payment (the processor allows 30 minutes to 24 hours). */
const checkoutTtlMs = 60 * 60 * 1000;
/** An open checkout this close to its end is replaced rather than reused, so the payer has time to pay. */
const checkoutReuseMarginMs = 10 * 60 * 1000;

export const payActions: PayActions = { view, pay };
