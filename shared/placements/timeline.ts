import type { TimelineRow, TimelineSource } from '../claims/timeline-source.ts';
import { refundSumsOfRequestR } from './stay-money.ts';

// The placement's timeline entries, from the placement's own timestamps. placementTimeline: the home
// put on the request and offered or placed, the household's answers, each contract version's dates
// (set, then changed with both ranges) and its signature progress, extensions asked for and those
// that did not go ahead. moneyTimeline: the money and the stay (bookings created, moved in,
// cancelled and closed out, cleared and failed charges, refunds made (and refunds that could not be issued), refund requests that return a
// deposit).
//
// An entry reads only what never changes after its moment, so once shown it stays word for word:
// contract versions (their dates, signatures, an addendum's withdrawal and its reason), stay
// changes, household answers, a booking's creation, move-in, cancellation and closeout stamps, settled
// payments and failed charges (app.payment_failures), messages that did not go out (app.undelivered_messages). Never a column a later step rewrites (the
// booking's check_out, an option's state or signer, a refund request's status): a later change
// is an entry of its own.

const fmt = (d: Record<string, unknown>) => `${d.move_in_date} to ${d.move_out_date}`;

/** A shortening's effect on what was paid: to refund, or now due. */
const refundNote = (d: Record<string, unknown>) => {
  if (d.refund_due === undefined || Number(d.refund_due) === 0) return '';
  const amount = `${Math.abs(Number(d.refund_due)).toFixed(2)} ${String(d.currency).toUpperCase()}`;
  return Number(d.refund_due) > 0 ? ` ${amount} of rent paid is to be refunded.` : ` ${amount} more is due for the months paid.`;
};

/** A contract version: the lease, or an extension's addendum. */
const contract = (d: Record<string, unknown>) => (d.addendum ? 'Extension addendum' : 'Lease');

export const placementTimeline: TimelineSource = {
  summaries: {
    'home.added': () => 'Home put on the request.',
    'home.offered': () => 'Home sent to the household.',
    'application.approved': () => 'The landlord approved the household’s application.',
    'application.declined': (d) => `The landlord declined the household’s application: "${d.reason}".`,
    'home.placed': () => 'Home placed without the household.',
    'household.responded': (d) =>
      d.action === 'decline' ? `The household declined: "${d.reason}".`
        : d.action === 'propose_dates' ? `The household proposed ${d.move_in} to ${d.move_out}.`
          : d.action === 'apply' ? 'The household applied.' : 'The household saved the home.',
    'dates.set': (d) => `Dates set: ${fmt(d)}.`,
    'dates.changed': (d) => `Dates changed from ${d.previous_move_in_date} to ${d.previous_move_out_date} to ${fmt(d)}.${refundNote(d)}`,
    'lease.sent': (d) => `${contract(d)} (version ${d.version}) sent for signature.`,
    'lease.signed_by_recipient': (d) => `${contract(d)} (version ${d.version}) signed by ${d.signer_name ?? 'the first signer'}.`,
    'lease.signed_by_owner': (d) => `${contract(d)} (version ${d.version}) countersigned by the landlord.`,
    'extension.requested': (d) => `Extension asked for: the stay to end on ${d.move_out_date} instead of ${d.previous_move_out_date}.`,
    'extension.declined': (d) => `The landlord declined the extension to ${d.move_out_date}.`,
    'extension.lapsed': (d) => `The extension to ${d.move_out_date} lapsed: it was not signed and paid when the stay ended.`,
    'extension.cancelled': (d) => `The extension to ${d.move_out_date} was withdrawn with the cancelled placement.`,
    'extension.stay_shortened': (d) => `The extension to ${d.move_out_date} was withdrawn: the stay was shortened before it took effect.`,
    'extension.withdrawn': (d) => `The extension to ${d.move_out_date} was withdrawn.`,
    'household_link.undelivered': (d) =>
      d.reason === 'not_configured'
        ? `The household's link was not sent: ${d.error}.`
        : `The household's link could not be sent (${d.attempts} attempts): ${d.error}.`,
  },
  entries: (tx, claim) => tx<TimelineRow[]>`
    with homes as (select * from app.claim_options where claim_id = ${claim.id}),
    leases as (
      select l.*, p.move_in_date as previous_move_in_date, p.move_out_date as previous_move_out_date,
             case when l.kind = 'addendum' then '{"addendum": true}'::jsonb else '{}'::jsonb end as marks
        from app.lease_agreements l
        left join app.lease_agreements p on p.claim_option_id = l.claim_option_id and p.version = l.version - 1 and p.kind = 'lease'
       where l.claim_id = ${claim.id})
    -- The offer as the home went on the request: sent, or placed (approved). Sending and placing
    -- each stamp their time once, so whichever came first says how it was added.
    select h.added_at as at, 'home.added' as type, h.property_id,
           jsonb_build_object('option_status', case when h.committed_at < coalesce(h.offered_at, 'infinity') then 'approved' else 'sent' end) as detail
      from homes h
    union all
    -- Offering and placing happen with or after adding, never before it, whatever the clocks say.
    select greatest(h.offered_at, h.added_at), 'home.offered', h.property_id, '{}'::jsonb from homes h where h.offered_at is not null
    union all
    select greatest(h.committed_at, h.added_at), 'home.placed', h.property_id, '{}'::jsonb
      from homes h where h.placed_without_recipient and h.committed_at is not null
    union all
    select h.application_approved_at, 'application.approved', h.property_id, '{}'::jsonb
      from homes h where h.applied_at is not null and h.application_approved_at is not null
    union all
    select h.application_declined_at, 'application.declined', h.property_id, jsonb_build_object('reason', h.application_decline_reason)
      from homes h where h.application_declined_at is not null
    union all
    select r.created_at, 'household.responded', h.property_id,
           -- Not how a proposal was resolved (set later on the row): the dates set after it say so.
           jsonb_strip_nulls(jsonb_build_object('action', r.action, 'reason', r.reason, 'move_in', r.move_in, 'move_out', r.move_out))
      from app.household_responses r join homes h on h.id = r.claim_option_id
    union all
    select l.created_at, case when l.version = 1 then 'dates.set' else 'dates.changed' end, l.property_id,
           jsonb_strip_nulls(jsonb_build_object('lease_id', l.id, 'version', l.version, 'move_in_date', l.move_in_date, 'move_out_date', l.move_out_date,
                              'previous_move_in_date', l.previous_move_in_date, 'previous_move_out_date', l.previous_move_out_date))
      from leases l
     where l.kind = 'lease' and (l.version = 1 or l.move_in_date <> l.previous_move_in_date or l.move_out_date <> l.previous_move_out_date)
    union all
    -- An extension changes the dates when its payment clears and it takes effect.
    select a.effective_at, 'dates.changed', a.property_id,
           jsonb_build_object('lease_id', a.extends_lease_id, 'addendum_id', a.id, 'extended', true, 'move_in_date', b.move_in_date,
                              'move_out_date', a.move_out_date, 'previous_move_in_date', b.move_in_date, 'previous_move_out_date', a.move_in_date)
      from leases a join leases b on b.id = a.extends_lease_id
     where a.kind = 'addendum' and a.effective_at is not null
    union all
    select s.created_at, 'dates.changed', s.property_id,
           jsonb_build_object('lease_id', s.lease_agreement_id, 'shortened', true, 'move_in_date', l.move_in_date, 'move_out_date', s.move_out,
                              'previous_move_in_date', l.move_in_date, 'previous_move_out_date', s.previous_move_out,
                              'refund_due', s.refund_due_cents / 100.0, 'currency', s.currency)
      from app.stay_changes s join leases l on l.id = s.lease_agreement_id
    union all
    select l.sent_at, 'lease.sent', l.property_id, jsonb_build_object('lease_id', l.id, 'version', l.version) || l.marks
      from leases l where l.sent_at is not null
    union all
    select l.policyholder_signed_at, 'lease.signed_by_recipient', l.property_id,
           jsonb_build_object('lease_id', l.id, 'version', l.version, 'signer_name', l.signer_name) || l.marks
      from leases l where l.policyholder_signed_at is not null
    union all
    select l.owner_signed_at, 'lease.signed_by_owner', l.property_id, jsonb_build_object('lease_id', l.id, 'version', l.version) || l.marks
      from leases l where l.owner_signed_at is not null
    union all
    -- An addendum covers the added nights: from the stay's move-out when asked to the new one.
    select a.created_at, 'extension.requested', a.property_id,
           jsonb_build_object('lease_id', a.extends_lease_id, 'addendum_id', a.id, 'previous_move_out_date', a.move_in_date, 'move_out_date', a.move_out_date)
      from leases a where a.kind = 'addendum'
    union all
    select a.withdrawn_at, 'extension.' || coalesce(a.withdrawal_reason, 'withdrawn'), a.property_id,
           jsonb_build_object('lease_id', a.extends_lease_id, 'addendum_id', a.id, 'previous_move_out_date', a.move_in_date, 'move_out_date', a.move_out_date)
      from leases a where a.kind = 'addendum' and a.withdrawn_at is not null
    union all
    select u.failed_at, 'household_link.undelivered', u.property_id,
           jsonb_build_object('reason', u.reason, 'error', u.error, 'attempts', u.attempts, 'link_issued_at', u.link_issued_at)
      from app.undelivered_messages u where u.claim_id = ${claim.id}`,
};

const money = (d: Record<string, unknown>, field: string) => `${Number(d[field]).toFixed(2)} ${String(d.currency).toUpperCase()}`;

/** What a charge was for, as its entries name it. */
const charge = (d: Record<string, unknown>) => (d.charge_type === 'initial' ? 'First payment' : d.charge_type === 'extension' ? 'Extension payment' : 'Rent');

export const moneyTimeline: TimelineSource = {
  summaries: {
    'booking.created': (d) => `Booking confirmed: ${d.check_in} to ${d.check_out}.`,
    'move_in.confirmed': () => 'The household moved in.',
    'booking.cancelled': (d) => `Booking cancelled${d.reason ? `: "${d.reason}"` : ''}.`,
    'booking.completed': () => 'The stay reached its move-out date and was closed out.',
    'payment.succeeded': (d) => `${charge(d)} of ${money(d, 'amount')} cleared (service fee ${money(d, 'platform_fee')}).`,
    'payment.failed': (d) => `${charge(d)} of ${money(d, 'amount')} failed${d.failure_reason ? `: "${d.failure_reason}"` : ''}.`,
    'payment.refunded': (d) => `Refund of ${money(d, 'amount')} issued by the landlord (service fee ${money(d, 'platform_fee_refunded')} returned with it).`,
    'refund.declined': (d) => `Refund of ${money(d, 'amount')} declined by the landlord.`,
    'deposit.refund_requested': (d) => d.purpose === 'deposit'
      ? `Return of the deposit requested: ${money(d, 'amount')}.`
      : `Refund of ${money(d, 'amount')} requested, of what is owed back on a payment that included the deposit.`,
    'payment.duplicate': (d) => `A second charge of ${money(d, 'amount')} cleared for what was already paid; it is refunded automatically.`,
    'payment.refund_failed': (d) =>
      `Refund of ${money(d, 'amount')} approved but not issued: the payment processor refused it. The service's staff have been told and retry it.`,
  },
  entries: (tx, claim) => tx<TimelineRow[]>`
    -- The dates the booking was confirmed for are its contract version's, which never change (the
    -- booking's own check_out follows shortenings and extensions, each an entry of its own).
    select b.created_at as at, 'booking.created' as type, b.property_id,
           jsonb_build_object('booking_id', b.id, 'check_in', l.move_in_date, 'check_out', l.move_out_date) as detail
      from app.bookings b join app.lease_agreements l on l.id = b.lease_agreement_id where b.claim_id = ${claim.id}
    union all
    select b.move_in_confirmed_at, 'move_in.confirmed', b.property_id, jsonb_build_object('booking_id', b.id)
      from app.bookings b where b.claim_id = ${claim.id} and b.move_in_confirmed_at is not null
    union all
    select b.cancelled_at, 'booking.cancelled', b.property_id, jsonb_build_object('booking_id', b.id, 'reason', b.cancel_reason)
      from app.bookings b where b.claim_id = ${claim.id} and b.cancelled_at is not null
    union all
    select b.completed_at, 'booking.completed', b.property_id, jsonb_build_object('booking_id', b.id)
      from app.bookings b where b.claim_id = ${claim.id} and b.completed_at is not null
    union all
    select f.failed_at, 'payment.failed', f.property_id,
           jsonb_build_object('payment_id', f.payment_id, 'charge_type', f.charge_type, 'payer', f.payer, 'amount', f.amount_cents / 100.0,
                              'currency', f.currency, 'failure_reason', f.failure_reason)
      from app.payment_failures f where f.claim_id = ${claim.id}
    union all
    select p.paid_at, 'payment.succeeded', p.property_id,
           jsonb_build_object('payment_id', p.id, 'charge_type', p.charge_type, 'payer', p.payer, 'amount', p.gross_cents / 100.0,
                              'platform_fee', p.platform_fee_cents / 100.0, 'currency', p.currency)
      from app.payments p where p.claim_id = ${claim.id} and p.paid_at is not null and p.duplicate_of is null
    union all
    select p.paid_at, 'payment.duplicate', p.property_id,
           jsonb_build_object('payment_id', p.id, 'duplicate_of', p.duplicate_of, 'charge_type', p.charge_type, 'payer', p.payer,
                              'amount', p.gross_cents / 100.0, 'currency', p.currency)
      from app.payments p where p.claim_id = ${claim.id} and p.duplicate_of is not null
    union all
    select r.refunded_at, 'payment.refunded', r.property_id,
           jsonb_build_object('refund_request_id', r.id, 'payment_id', r.payment_id, 'amount', e.cents / 100.0, 'currency', r.currency,
                              -- The service fee on the rent returned comes back with it (the ledger's fee entry).
                              'platform_fee_refunded', e.fee_cents / 100.0,
                              'purpose', r.purpose, 'goodwill', r.goodwill)
      from app.refund_requests r
     cross join lateral ${refundSumsOfRequestR(tx)} e
     where r.claim_id = ${claim.id} and r.refunded_at is not null
    union all
    select r.decided_at, 'refund.declined', r.property_id,
           jsonb_build_object('refund_request_id', r.id, 'payment_id', r.payment_id, 'amount', r.amount_cents / 100.0, 'currency', r.currency)
      from app.refund_requests r where r.claim_id = ${claim.id} and r.status = 'declined' and r.decided_at is not null
    union all
    -- Its status as asked (every carrier's request starts there); the landlord's answer is its own entry.
    select r.created_at, 'deposit.refund_requested', r.property_id,
           jsonb_build_object('refund_request_id', r.id, 'payment_id', r.payment_id, 'amount', r.amount_cents / 100.0, 'currency', r.currency,
                              'status', 'pending_owner_approval', 'purpose', r.purpose)
      from app.refund_requests r where r.claim_id = ${claim.id} and (r.covers_deposit or r.purpose = 'deposit') and not r.automatic
    union all
    -- Each time a refund could not be issued (its job spent its attempts): a step of the request's
    -- history, which stays when a retry issues it after all (payment.refunded then follows).
    select c.changed_at, 'payment.refund_failed', a.property_id,
           jsonb_build_object('refund_request_id', a.id, 'payment_id', a.payment_id, 'amount', a.amount_cents / 100.0, 'currency', a.currency)
      from app.refund_request_changes c join app.refund_request_asks a on a.id = c.request_id
     where a.claim_id = ${claim.id} and c.status = 'failed'`,
};
