import type { Tx } from '../db/client.ts';
import type { ChargePart, Payer } from './billing.ts';
import type { Account, Entry, NewEntry } from './ledger.ts';

// The ledger's SQL (app.ledger_entries, append-only: inserts and reads only), in the request's
// tenant transaction with the placement locked by the command that posts.

interface EntryRow {
  id: string;
  position: string;
  lease_agreement_id: string;
  charge_type: Entry['chargeType'];
  period_start: string;
  part: ChargePart;
  line: string;
  kind: Entry['kind'];
  cause: Entry['cause'];
  adjusts: string | null;
  posted_for: string | null;
  nights_from: string | null;
  nights_to: string | null;
  monthly_cents: string | null;
  billing_start: string | null;
  billing_days: number | null;
  amount_cents: string;
  payer: Payer | null;
  payment_id: string | null;
  refund_request_id: string | null;
  posted_on: string | null;
  debit_account: Account;
  credit_account: Account;
  created_at: Date;
}

const toEntry = (r: EntryRow): Entry => ({
  id: r.id,
  position: Number(r.position),
  postedAt: r.created_at,
  // The organisation's day when it was posted; created_at's (UTC) for an entry posted before that was kept.
  postedOn: r.posted_on ?? r.created_at.toISOString().slice(0, 10),
  leaseId: r.lease_agreement_id,
  chargeType: r.charge_type,
  periodStart: r.period_start,
  part: r.part,
  line: r.line,
  kind: r.kind,
  cause: r.cause,
  adjusts: r.adjusts,
  postedFor: r.posted_for,
  nights: r.nights_from ? { from: r.nights_from, to: r.nights_to! } : null,
  basis: r.monthly_cents === null ? null : { monthlyCents: Number(r.monthly_cents), billingStart: r.billing_start!, billingDays: r.billing_days! },
  amountCents: Number(r.amount_cents),
  payer: r.payer,
  paymentId: r.payment_id,
  refundRequestId: r.refund_request_id,
  debitAccount: r.debit_account,
  creditAccount: r.credit_account,
});

/** The placement's entries in posting order. */
export async function entriesOf(tx: Tx, placementId: string): Promise<Entry[]> {
  const rows = await tx<EntryRow[]>`select * from app.ledger_entries where claim_option_id = ${placementId} order by position`;
  return rows.map(toEntry);
}

/**
 * Posts entries on the placement. A version's signed charges are posted once whoever posts them
 * first (the unique index ledger_entries_posted_once: a second posting adds nothing); adjustments
 * and money moved are posted by the command that holds the placement's lock, and one that collides
 * with an entry already posted (a payment, a refund or a release posted twice) is refused by the
 * database and fails its command, never dropped in silence.
 */
export async function postEntries(tx: Tx, placement: { id: string; claim_id: string; property_id: string }, currency: string, entries: readonly NewEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const rows = entries.map((e) => ({
    lease_agreement_id: e.leaseId,
    charge_type: e.chargeType,
    period_start: e.periodStart,
    part: e.part,
    line: e.line,
    kind: e.kind,
    cause: e.cause,
    adjusts: e.adjusts,
    posted_for: e.postedFor,
    nights_from: e.nights?.from ?? null,
    nights_to: e.nights?.to ?? null,
    monthly_cents: e.basis?.monthlyCents ?? null,
    billing_start: e.basis?.billingStart ?? null,
    billing_days: e.basis?.billingDays ?? null,
    amount_cents: e.amountCents,
    payer: e.payer ?? null,
    payment_id: e.paymentId ?? null,
    refund_request_id: e.refundRequestId ?? null,
  }));
  await tx`
    insert into app.ledger_entries (org_id, environment, claim_id, claim_option_id, property_id, currency, lease_agreement_id, charge_type,
                                    period_start, part, line, kind, cause, adjusts, posted_for, nights_from, nights_to, monthly_cents,
                                    billing_start, billing_days, amount_cents, payer, payment_id, refund_request_id, posted_on)
    select app.current_org(), app.current_env(), ${placement.claim_id}, ${placement.id}, ${placement.property_id}, ${currency.toLowerCase()},
           e.lease_agreement_id, e.charge_type, e.period_start, e.part, e.line, e.kind, e.cause, e.adjusts, e.posted_for, e.nights_from,
           e.nights_to, e.monthly_cents, e.billing_start, e.billing_days, e.amount_cents, e.payer, e.payment_id, e.refund_request_id,
           -- The day on the organisation's clock (its sandbox clock's in sandbox).
           (app.clock_now() at time zone 'utc')::date
      -- In the order given, so the positions follow it.
      from jsonb_array_elements(${tx.json(rows as never)}) with ordinality as a(value, n)
     cross join lateral jsonb_to_record(a.value) as e(
        lease_agreement_id uuid, charge_type text, period_start date, part text, line text, kind text, cause text, adjusts uuid,
        posted_for uuid, nights_from date, nights_to date, monthly_cents bigint, billing_start date, billing_days integer, amount_cents bigint,
        payer text, payment_id uuid, refund_request_id uuid)
     order by a.n
    on conflict (lease_agreement_id, period_start, line, billing_start) where kind = 'charge' and cause = 'signed' do nothing`;
}

/** What a refund request's posted entries return to the payer, and the service fee they return to the landlord. */
export async function refundedBy(tx: Tx, refundRequestId: string): Promise<{ cents: number; feeCents: number }> {
  const [row] = await tx<{ cents: string; fee_cents: string }[]>`
    select coalesce(sum(amount_cents) filter (where kind = 'refund'), 0) as cents, -coalesce(sum(amount_cents) filter (where kind = 'fee'), 0) as fee_cents
      from app.ledger_entries where refund_request_id = ${refundRequestId}`;
  return { cents: Number(row.cents), feeCents: Number(row.fee_cents) };
}

/**
 * What a refund request's entries returned to the payer and the service fee they returned to the
 * landlord, in cents, as a subquery over the refund request `r` of the query it joins (lateral).
 */
export const refundSumsOfRequestR = (tx: Tx) => tx`(
  select coalesce(sum(amount_cents) filter (where kind = 'refund'), 0) as cents, -coalesce(sum(amount_cents) filter (where kind = 'fee'), 0) as fee_cents
    from app.ledger_entries where refund_request_id = r.id)`;
