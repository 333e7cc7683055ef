import type { Tx } from '../db/client.ts';
import type { ClaimRow } from '../claims/repository.ts';
import type { LeaseRow } from './lease.ts';
import { chargeParts, type Payer } from './billing.ts';
import {
  chargesOf, extensionEntries, leaseCharges, overpaidTotal, reversalEntries, settlementsOf, shorteningEntries, transferReversals,
  type Entry, type LedgerCharge, type NewEntry, type SettledByCharge,
} from './ledger.ts';
import { refundEntries, type RefundAsk } from './ledger-refunds.ts';
import { entriesOf, postEntries } from './ledger-repository.ts';
import { addendaOf, currentLease } from './contract-repository.ts';
import type { OptionRow } from './option-repository.ts';
import { signedPrices } from './signed-prices.ts';
import { platformFeeOf } from '../properties/earnings.ts';

// Posting to a stay's ledger (./ledger.ts) from the commands that change the stay or move its
// money (a payment, a refund), and reading it back for what is due, the pay page and the statement. Every function runs in the request's tenant
// transaction; the ones that post need the placement locked (../unit-of-work.ts), so two changes
// of one stay take turns and each posts from the entries the other left.

/** The ledger of a placement as it stands: its entries, the charges they add up to, and what was settled of each. */
export interface Ledger {
  entries: Entry[];
  charges: LedgerCharge[];
  settled: SettledByCharge;
  currency: string | null;
}

/** What a contract version signed by both posts: the lease's stay, or an addendum's added nights. */
async function signedEntries(tx: Tx, claim: ClaimRow, placement: OptionRow, version: LeaseRow, lease: LeaseRow, entries: Entry[]) {
  if (version.kind === 'lease') {
    const stay = { moveIn: version.move_in_date, moveOut: version.move_out_date };
    const { prices, currency } = await signedPrices(tx, claim, placement, version, stay);
    return { currency, posted: leaseCharges(version.id, prices, stay) };
  }
  // An extension's nights are priced at the tier of the extended stay's length.
  const { prices, currency } = await signedPrices(tx, claim, placement, version, { moveIn: lease.move_in_date, moveOut: version.move_out_date });
  return { currency, posted: extensionEntries(entries, version.id, prices, lease.move_in_date, version.move_in_date, version.move_out_date) };
}

/**
 * What posting a version signed by both would add (nothing once it is posted): the extension page
 * shows an addendum's price with it before it is signed, the same figures its signing posts.
 */
export async function previewSigned(tx: Tx, claim: ClaimRow, placement: OptionRow, version: LeaseRow, lease: LeaseRow): Promise<NewEntry[]> {
  const entries = await entriesOf(tx, placement.id);
  return (await signedEntries(tx, claim, placement, version, lease, entries)).posted;
}

/** Posts a version's charges when both have signed it (once: a version already posted adds nothing). */
export async function postSigned(tx: Tx, claim: ClaimRow, placement: OptionRow, version: LeaseRow): Promise<void> {
  const lease = version.kind === 'lease' ? version : await currentLease(tx, placement);
  if (!lease) return;
  const entries = await entriesOf(tx, placement.id);
  if (entries.some((e) => e.postedFor === version.id)) return;
  const { currency, posted } = await signedEntries(tx, claim, placement, version, lease, entries);
  await postEntries(tx, placement, currency, posted);
}

/** The ledger of the placement as posted. Reading never posts: a change posts, in its command, under the placement's lock. */
export async function ledgerOf(tx: Tx, placement: OptionRow): Promise<Ledger> {
  const [lease, entries] = await Promise.all([currentLease(tx, placement), entriesOf(tx, placement.id)]);
  return { entries, charges: chargesOf(entries), settled: settlementsOf(entries), currency: lease?.terms?.home.currency ?? null };
}

/**
 * The ledger a change posts to: first every version signed by both and not posted yet (one signed
 * before the ledger existed: the post_signed_charges job posts those, and a change that comes first
 * posts them itself), from its signed terms, as its signing would have.
 */
async function ledgerToChange(tx: Tx, claim: ClaimRow, placement: OptionRow): Promise<Ledger> {
  await postSignedVersions(tx, claim, placement);
  return ledgerOf(tx, placement);
}

/** Posts what the placement's signed versions charge and is not posted yet (a stay signed before the ledger existed); in its command, under its lock. */
export async function postSignedVersions(tx: Tx, claim: ClaimRow, placement: OptionRow): Promise<void> {
  const lease = await currentLease(tx, placement);
  if (lease?.status === 'fully_signed') await postUnposted(tx, claim, placement, lease, await entriesOf(tx, placement.id));
}

/** Posts the signed lease and its signed extensions not posted yet, oldest first; answers whether it posted any. */
async function postUnposted(tx: Tx, claim: ClaimRow, placement: OptionRow, lease: LeaseRow, entries: Entry[]): Promise<boolean> {
  const posted = new Set(entries.map((e) => e.postedFor));
  // Oldest first, as they were signed: each extension's nights begin where the one before ended.
  const addenda = (await addendaOf(tx, placement.id)).reverse()
    .filter((a) => (a.status === 'fully_signed' || a.effective_at !== null) && a.extends_lease_id === lease.id);
  const unposted = [lease, ...addenda].filter((version) => !posted.has(version.id));
  for (const version of unposted) await postSigned(tx, claim, placement, version);
  return unposted.length > 0;
}

/** Posts adjustments and answers what they changed in what is owed back (cents, at least 0). */
async function postAdjustments(tx: Tx, placement: OptionRow, ledger: Ledger, currency: string, adjustments: NewEntry[]): Promise<number> {
  const before = overpaidTotal(ledger.charges, ledger.settled);
  await postEntries(tx, placement, currency, adjustments);
  const after = overpaidTotal(chargesOf(await entriesOf(tx, placement.id)), ledger.settled);
  return Math.max(0, after - before);
}

/**
 * The nights after `moveOut` released; with an extension that goes with them (`addendumId`: lapsed,
 * or withdrawn by a shortening), what it moved between charges goes back too.
 */
function releasedAfter(ledger: Ledger, moveOut: string, cause: 'shortened' | 'lapsed', addendumId?: string): NewEntry[] {
  const released = shorteningEntries(ledger.entries, moveOut, cause);
  return addendumId ? [...released, ...transferReversals([...ledger.entries, ...released], cause, new Set([addendumId]))] : released;
}

/**
 * A shortening to `moveOut`: releases the nights after it. An extension signed by both and not in
 * effect yet that the shortening withdraws (`withdrawnAddendumId`) goes as at a lapse. Answers the
 * refund it makes due.
 */
export async function postShortening(tx: Tx, claim: ClaimRow, placement: OptionRow, moveOut: string, withdrawnAddendumId?: string) {
  const ledger = await ledgerToChange(tx, claim, placement);
  const currency = ledger.currency ?? 'usd';
  return { refundDueCents: await postAdjustments(tx, placement, ledger, currency, releasedAfter(ledger, moveOut, 'shortened', withdrawnAddendumId)), currency };
}

/**
 * An extension signed by both and unpaid when the stay ends on `moveOut`: its nights are released
 * (those it restored too) and what it moved between charges goes back.
 */
export async function postLapse(tx: Tx, claim: ClaimRow, placement: OptionRow, addendumId: string, moveOut: string): Promise<void> {
  const ledger = await ledgerToChange(tx, claim, placement);
  await postAdjustments(tx, placement, ledger, ledger.currency ?? 'usd', releasedAfter(ledger, moveOut, 'lapsed', addendumId));
}

/**
 * A cancellation: before move-in everything the stay still charges is reversed, and what extensions
 * moved between charges goes back; after it, the nights from `from` on are released (the fees and
 * deposits of a stay begun stay), and with them what an extension had moved onto its charge for
 * them. What was settled beyond what remains is owed back (the statement's refund due; the landlord
 * returns it through a refund request).
 */
export async function postCancellation(tx: Tx, claim: ClaimRow, placement: OptionRow, movedIn: boolean, from: string): Promise<void> {
  const ledger = await ledgerToChange(tx, claim, placement);
  if (movedIn) {
    await postAdjustments(tx, placement, ledger, ledger.currency ?? 'usd', shorteningEntries(ledger.entries, from, 'cancelled'));
    return;
  }
  const addenda = new Set(ledger.entries.flatMap((e) => (e.kind === 'transfer' && e.postedFor ? [e.postedFor] : [])));
  const reversed = reversalEntries(ledger.entries, 'cancelled');
  await postAdjustments(tx, placement, ledger, ledger.currency ?? 'usd', [...reversed, ...transferReversals([...ledger.entries, ...reversed], 'cancelled', addenda)]);
}

/** A payment as the ledger posts it (an app.payments row). */
export interface SettledPayment {
  id: string;
  lease_agreement_id: string;
  charge_type: LedgerCharge['chargeType'];
  period_start: string;
  payer: Payer;
  currency: string;
  rent_cents: number | string;
  deposit_cents: number | string;
  fees_cents: number | string;
  platform_fee_cents: number | string;
  duplicate_of: string | null;
}

/** A whole payment as entries, part by part: paid (lowering what its payer owes), or all of it refunded. */
function wholePaymentEntries(payment: SettledPayment, kind: 'payment' | 'refund', refundRequestId: string | null = null): NewEntry[] {
  const cause = payment.duplicate_of ? 'duplicate' : kind === 'payment' ? 'paid' : 'refunded';
  return chargeParts.filter((part) => Number(payment[`${part}_cents`]) > 0).map((part) => ({
    leaseId: payment.lease_agreement_id,
    chargeType: payment.charge_type,
    periodStart: payment.period_start,
    part,
    line: kind === 'payment' ? 'Payment' : 'Refund',
    kind,
    cause,
    adjusts: null,
    postedFor: null,
    nights: null,
    basis: null,
    amountCents: (kind === 'payment' ? -1 : 1) * Number(payment[`${part}_cents`]),
    payer: payment.payer,
    paymentId: payment.id,
    refundRequestId,
  }));
}

/**
 * The service fee moving between the landlord's rent and the service, on a payment's charge: taken
 * (positive) when it settles, returned (negative) with a refund. Nothing when it is 0.
 */
function serviceFee(payment: Pick<SettledPayment, 'id' | 'lease_agreement_id' | 'charge_type' | 'period_start' | 'duplicate_of'>, cents: number, refundRequestId: string | null = null): NewEntry[] {
  if (cents === 0) return [];
  return [{
    leaseId: payment.lease_agreement_id,
    chargeType: payment.charge_type,
    periodStart: payment.period_start,
    part: 'rent',
    line: refundRequestId ? 'Service fee returned' : 'Service fee',
    kind: 'fee',
    cause: payment.duplicate_of ? 'duplicate' : refundRequestId ? 'refunded' : 'paid',
    adjusts: null,
    postedFor: null,
    nights: null,
    basis: null,
    amountCents: cents,
    paymentId: payment.id,
    refundRequestId,
  }];
}

/** What a settled payment paid, part by part, and the service fee it took, posted once (a duplicate charge as such: it counts for nothing). */
export const postPayment = (tx: Tx, placement: OptionRow, payment: SettledPayment) =>
  postEntries(tx, placement, payment.currency, [...wholePaymentEntries(payment, 'payment'), ...serviceFee(payment, Number(payment.platform_fee_cents))]);

/** A duplicate charge's automatic refund: all of it back, part by part, as it was paid, and all its service fee. */
export const postDuplicateRefund = (tx: Tx, placement: OptionRow, payment: SettledPayment, refundRequestId: string) =>
  postEntries(tx, placement, payment.currency, [
    ...wholePaymentEntries(payment, 'refund', refundRequestId), ...serviceFee(payment, -Number(payment.platform_fee_cents), refundRequestId),
  ]);

/**
 * Posts what a refund returns (../ledger-refunds.ts), and the service fee that follows the rent it
 * returns (8 % of it; nothing on deposits or fees), and answers what it returns, in cents.
 */
export async function postRefund(tx: Tx, claim: ClaimRow, placement: OptionRow, ask: RefundAsk): Promise<{ cents: number }> {
  const ledger = await ledgerToChange(tx, claim, placement);
  const posted = refundEntries(ledger.entries, ask);
  const refunds = posted.filter((e) => e.kind === 'refund');
  const rentCents = refunds.filter((e) => e.part === 'rent').reduce((sum, e) => sum + e.amountCents, 0);
  const charge = { id: ask.paymentId, lease_agreement_id: ask.first.leaseId, charge_type: ask.first.chargeType, period_start: ask.first.periodStart, duplicate_of: null };
  // Never more than the payment's fee not returned yet (rounding each refund's 8 % could add a cent).
  const feeLeft = ledger.entries.filter((e) => e.kind === 'fee' && e.paymentId === ask.paymentId).reduce((sum, e) => sum + e.amountCents, 0);
  await postEntries(tx, placement, ledger.currency ?? 'usd', [...posted, ...serviceFee(charge, -Math.min(feeLeft, platformFeeOf(rentCents)), ask.refundRequestId)]);
  return { cents: refunds.reduce((sum, e) => sum + e.amountCents, 0) };
}

/** An extension's own charge (its added nights beyond any night signed before), or null when it only takes back nights. */
export const extensionCharge = (ledger: Ledger, addendumId: string) =>
  ledger.charges.find((c) => c.leaseId === addendumId && c.chargeType === 'extension') ?? null;
