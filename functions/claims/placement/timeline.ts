import type { TimelineSource, TimelineRow } from '../timeline.ts';

// The placement's timeline entries, from the placement's own timestamps: the home put on the request
// and offered or placed, the household's answers, each contract version's dates (set, then changed
// with both ranges) and its signature progress.

const fmt = (d: Record<string, unknown>) => `${d.move_in_date} to ${d.move_out_date}`;

export const placementTimeline: TimelineSource = {
  summaries: {
    'home.added': () => 'Home put on the request.',
    'home.offered': () => 'Home sent to the household.',
    'home.placed': (d) => `Home placed without the household${d.signer_name ? `; ${d.signer_name} signs the lease` : ''}.`,
    'household.responded': (d) =>
      d.action === 'decline' ? `The household declined: "${d.reason}".`
        : d.action === 'propose_dates' ? `The household proposed ${d.move_in} to ${d.move_out}.`
          : d.action === 'apply' ? 'The household applied.' : 'The household saved the home.',
    'dates.set': (d) => `Dates set: ${fmt(d)}.`,
    'dates.changed': (d) => `Dates changed from ${d.previous_move_in_date} to ${d.previous_move_out_date} to ${fmt(d)}.`,
    'lease.sent': (d) => `Lease (version ${d.version}) sent for signature.`,
    'lease.signed_by_recipient': (d) => `Lease (version ${d.version}) signed by ${d.signer_name ?? 'the first signer'}.`,
    'lease.signed_by_owner': (d) => `Lease (version ${d.version}) countersigned by the landlord.`,
  },
  entries: (tx, claim) => tx<TimelineRow[]>`
    with homes as (select * from app.claim_homes where claim_id = ${claim.id}),
    leases as (
      select l.*, p.move_in_date as previous_move_in_date, p.move_out_date as previous_move_out_date
        from app.lease_agreements l
        left join app.lease_agreements p on p.claim_home_id = l.claim_home_id and p.version = l.version - 1
       where l.claim_id = ${claim.id})
    select h.added_at as at, 'home.added' as type, h.property_id, jsonb_build_object('option_status', h.option_status) as detail from homes h
    union all
    select h.offered_at, 'home.offered', h.property_id, '{}'::jsonb from homes h where h.offered_at is not null
    union all
    select h.committed_at, 'home.placed', h.property_id, jsonb_build_object('signer_name', h.signer_name)
      from homes h where h.placed_without_recipient and h.committed_at is not null
    union all
    select r.created_at, 'household.responded', h.property_id,
           jsonb_strip_nulls(jsonb_build_object('action', r.action, 'reason', r.reason, 'move_in', r.move_in, 'move_out', r.move_out, 'resolution', r.resolution))
      from app.household_responses r join homes h on h.id = r.claim_home_id
    union all
    select l.created_at, case when l.version = 1 then 'dates.set' else 'dates.changed' end, l.property_id,
           jsonb_strip_nulls(jsonb_build_object('lease_id', l.id, 'version', l.version, 'move_in_date', l.move_in_date, 'move_out_date', l.move_out_date,
                              'previous_move_in_date', l.previous_move_in_date, 'previous_move_out_date', l.previous_move_out_date))
      from leases l
     where l.version = 1 or l.move_in_date <> l.previous_move_in_date or l.move_out_date <> l.previous_move_out_date
    union all
    select l.sent_at, 'lease.sent', l.property_id, jsonb_build_object('lease_id', l.id, 'version', l.version) from leases l where l.sent_at is not null
    union all
    select l.policyholder_signed_at, 'lease.signed_by_recipient', l.property_id,
           jsonb_build_object('lease_id', l.id, 'version', l.version, 'signer_name', l.signer_name)
      from leases l where l.policyholder_signed_at is not null
    union all
    select l.owner_signed_at, 'lease.signed_by_owner', l.property_id, jsonb_build_object('lease_id', l.id, 'version', l.version)
      from leases l where l.owner_signed_at is not null`,
};
