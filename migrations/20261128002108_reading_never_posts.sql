-- Reading a stay's ledger never posts. Until now, the first read of a stay signed before the ledger
-- existed posted its signed charges on the way; now a command posts them under the placement's lock
-- (any change of the stay or of its money posts them first), and this queues that command as a job
-- for every such stay, so its statement and what is due read whole without waiting for a change.
insert into app.jobs (kind, org_id, environment, payload, dedupe_key)
select 'post_signed_charges', h.org_id, h.environment, jsonb_build_object('placement_id', h.id), 'post_signed_charges:' || h.id
  from app.claim_homes h
 where exists (
   select 1 from app.lease_agreements l
    where l.claim_home_id = h.id and l.status = 'fully_signed'
      and not exists (select 1 from app.ledger_entries e where e.posted_for = l.id))
on conflict do nothing;
