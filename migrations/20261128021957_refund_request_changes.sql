-- A refund request's life is appended, never updated in place.
--
-- Until now app.refund_requests carried status, decided_at, refunded_at, provider_ref and
-- failure_reason, overwritten at each step: a request refunded after a failed attempt kept no trace
-- of the failure, and nothing said who moved it. Now:
--
-- - app.refund_request_asks: the request as asked (placement, payment, amount, purpose, goodwill,
--   reason, automatic), written once and never changed (the old table, renamed, without the
--   columns that moved).
-- - app.refund_request_changes: one row per step of its life, appended in order: asked
--   (pending_owner_approval), approved or declined, refunded (issued) or failed, and refunded after
--   a failure when a retry issues it after all. Each says when, who or what moved it (carrier,
--   landlord, service, processor), and the processor's refund reference or the failure's reason
--   where they apply. Never updated or deleted (a trigger refuses it, whoever asks; the API role is
--   granted select and insert only).
-- - app.refund_requests: a view (security_invoker, so each table's row-level security holds for the
--   reader) of each request as asked with its status, decided_at, refunded_at, provider_ref,
--   failure_reason and updated_at derived from its changes, and its history: every reader (the
--   placement read, the provider's list, the timeline, staff views, the reconciliation) reads the
--   same columns as before, and the changes are the only source of them.
--
-- One open request per placement: the unique index on the old status column cannot be written on
-- a derived status. Commands ask and answer under the placement's lock (shared/placements/
-- unit-of-work.ts); underneath, a trigger on the ask serialises asks per placement (an advisory
-- lock) and refuses a second open one with unique_violation, as the index did. The changes of one
-- request are serialised the same way, and a trigger refuses a step that does not follow the last
-- one (a declined request is never approved, a refund is issued once).
--
-- Existing requests get their history from their current columns (asked at created_at; approved or
-- declined at decided_at; refunded at refunded_at, or failed at updated_at), idempotently.

alter table app.refund_requests rename to refund_request_asks;
-- The views that read the old table read the new view instead; their definitions are kept as
-- written (by name), so they are re-created below once the view exists.
create temp table refund_request_readers as
select distinct v.oid::regclass::text as name, pg_get_viewdef(v.oid) as definition
  from pg_depend d
  join pg_rewrite w on w.oid = d.objid
  join pg_class v on v.oid = w.ev_class
 where d.classid = 'pg_rewrite'::regclass and d.refclassid = 'pg_class'::regclass
   and d.refobjid = 'app.refund_request_asks'::regclass and v.oid <> 'app.refund_request_asks'::regclass;
-- (Qualified or not, as the search path prints it.) A view groups by a table's primary key alone;
-- a view has none, so grouping by the request's id names every column of it (each one follows
-- from the id: the rows are the same).
update refund_request_readers
   set definition = regexp_replace(replace(definition, 'refund_request_asks', 'refund_requests'), 'GROUP BY r\.id(\s)',
         'GROUP BY r.id, r.org_id, r.environment, r.claim_id, r.claim_home_id, r.property_id, r.provider_org_id, r.payment_id, '
         'r.amount_cents, r.currency, r.covers_deposit, r.reason, r.status, r.decided_at, r.refunded_at, r.provider_ref, '
         'r.failure_reason, r.created_at, r.updated_at, r.automatic, r.purpose, r.goodwill\1', 'g');

create table app.refund_request_changes (
  id uuid primary key default gen_random_uuid(),
  request_id uuid not null references app.refund_request_asks (id),
  -- The step's place in the request's life: 1 is the ask; each next one follows the last.
  seq integer not null check (seq > 0),
  org_id uuid not null references app.organisations (id),
  environment text not null check (environment in ('live', 'sandbox')),
  provider_org_id uuid not null references app.organisations (id),
  status text not null check (status in ('pending_owner_approval', 'approved', 'declined', 'refunded', 'failed')),
  moved_by text not null check (moved_by in ('carrier', 'landlord', 'service', 'processor')),
  changed_at timestamptz not null default clock_timestamp(),
  provider_ref text check (length(provider_ref) between 1 and 255),
  failure_reason text check (length(failure_reason) <= 2000),
  unique (request_id, seq),
  check ((seq = 1) = (status = 'pending_owner_approval')),
  check (failure_reason is null or status = 'failed')
);
create index refund_request_changes_provider on app.refund_request_changes (provider_org_id, environment);
comment on table app.refund_request_changes is
  'Each step of a refund request''s life, appended in order and never changed: asked (pending_owner_approval), approved or declined, refunded or failed (a failed one may be refunded by a retry). app.refund_requests derives a request''s status from its last step.';
comment on column app.refund_request_changes.request_id is 'The refund request (app.refund_request_asks).';
comment on column app.refund_request_changes.seq is 'The step''s place in the request''s life: 1 the ask, then one more per step.';
comment on column app.refund_request_changes.org_id is 'The carrier organisation that asked (the request''s).';
comment on column app.refund_request_changes.provider_org_id is 'The landlord that answers (the request''s).';
comment on column app.refund_request_changes.status is 'The status the request moved to.';
comment on column app.refund_request_changes.moved_by is
  'Who or what moved it: carrier (asked), landlord (approved, declined), service (a duplicate charge''s automatic refund, asked and approved at once), processor (refunded, failed).';
comment on column app.refund_request_changes.changed_at is 'When it moved.';
comment on column app.refund_request_changes.provider_ref is 'The processor''s refund id, on the step that issued it.';
comment on column app.refund_request_changes.failure_reason is 'Why the refund was not issued, on a failed step (for staff; never shown to the API).';
select app.enable_tenant_isolation('app.refund_request_changes');
-- The landlord reads the history of the requests on its homes, as it reads the requests.
create policy provider_read on app.refund_request_changes for select to svc_api
  using (provider_org_id = app.current_org() and environment = app.current_env());
-- Append-only: the API role appends steps and reads them, never edits or removes one.
grant select, insert on app.refund_request_changes to svc_api;

-- Existing requests: their life as their columns tell it. Idempotent (a step already written stays).
insert into app.refund_request_changes (request_id, seq, org_id, environment, provider_org_id, status, moved_by, changed_at, provider_ref, failure_reason)
select r.id, step.seq, r.org_id, r.environment, r.provider_org_id, step.status, step.moved_by, step.changed_at, step.provider_ref, step.failure_reason
  from app.refund_request_asks r
 cross join lateral (values
   (1, 'pending_owner_approval', case when r.automatic then 'service' else 'carrier' end, r.created_at, null::text, null::text),
   (2, case when r.status = 'declined' then 'declined' else 'approved' end, case when r.automatic then 'service' else 'landlord' end,
    r.decided_at, null, null),
   (3, r.status, 'processor', case when r.status = 'refunded' then r.refunded_at else r.updated_at end,
    r.provider_ref, case when r.status = 'failed' then coalesce(r.failure_reason, 'failed before its history was kept') end)
 ) as step (seq, status, moved_by, changed_at, provider_ref, failure_reason)
 where step.seq = 1
    or (step.seq = 2 and r.status <> 'pending_owner_approval')
    or (step.seq = 3 and r.status in ('refunded', 'failed'))
 order by r.created_at, r.id, step.seq
on conflict (request_id, seq) do nothing;

-- A step follows the request's last one: filled in from the request (tenant, landlord, its place),
-- and refused when the last step does not lead to it. Security definer: it reads the request's
-- steps whoever appends (the tenant's own row-level security still checks the row it writes).
create function app.refund_request_change_follows() returns trigger
language plpgsql security definer set search_path = app, pg_temp as $$
declare
  v_ask record;
  v_last record;
begin
  select org_id, environment, provider_org_id into v_ask from app.refund_request_asks where id = new.request_id;
  if not found then
    raise exception 'no refund request %', new.request_id using errcode = '23503';
  end if;
  -- One step at a time per request, whoever appends it (the commands also hold the placement's lock).
  perform pg_advisory_xact_lock(hashtextextended('refund_request_changes:' || new.request_id::text, 0));
  select seq, status into v_last from app.refund_request_changes where request_id = new.request_id order by seq desc limit 1;
  if not (coalesce(v_last.status, 'none') || ' > ' || new.status) = any (array[
      'none > pending_owner_approval',
      'pending_owner_approval > approved', 'pending_owner_approval > declined',
      'approved > refunded', 'approved > failed',
      -- The console's retry of an abandoned refund job issues it after all.
      'failed > refunded']) then
    raise exception 'a refund request that is % cannot become % (request %)', coalesce(v_last.status, 'not asked'), new.status, new.request_id
      using errcode = '23514';
  end if;
  new.seq := coalesce(v_last.seq, 0) + 1;
  new.org_id := v_ask.org_id;
  new.environment := v_ask.environment;
  new.provider_org_id := v_ask.provider_org_id;
  return new;
end $$;
create trigger refund_request_changes_follow before insert on app.refund_request_changes
  for each row execute function app.refund_request_change_follows();
comment on function app.refund_request_change_follows() is
  'Trigger: places a refund request''s new step after its last one (seq, tenant, landlord), and refuses a step the last one does not lead to.';

create function app.refund_request_history_frozen() returns trigger
language plpgsql as $$
begin
  raise exception '% is append-only: a refund request''s % is never %d', tg_table_name,
    case when tg_table_name = 'refund_request_asks' then 'ask' else 'history' end, lower(tg_op)
    using errcode = '55000';
end $$;
create trigger refund_request_changes_frozen before update or delete on app.refund_request_changes
  for each row execute function app.refund_request_history_frozen();
comment on function app.refund_request_history_frozen() is
  'Trigger: refuses any update or delete of a refund request as asked (app.refund_request_asks) or of a step of its life (app.refund_request_changes).';

-- The request as asked: written once. Its status lived here; now it is derived from the changes.
drop trigger refund_requests_touch on app.refund_request_asks;
drop policy provider_update on app.refund_request_asks;
revoke update, delete on app.refund_request_asks from svc_api;
grant select, insert on app.refund_request_asks to svc_api;
create trigger refund_request_asks_frozen before update or delete on app.refund_request_asks
  for each row execute function app.refund_request_history_frozen();

-- Every ask starts its life: the first step, by the carrier (the service, for its own automatic refund).
create function app.refund_request_asked() returns trigger
language plpgsql as $$
begin
  insert into app.refund_request_changes (request_id, status, moved_by, changed_at)
  values (new.id, 'pending_owner_approval', case when new.automatic then 'service' else 'carrier' end, new.created_at);
  return null;
end $$;
create trigger refund_request_asks_asked after insert on app.refund_request_asks
  for each row execute function app.refund_request_asked();
comment on function app.refund_request_asked() is 'Trigger: appends a refund request''s first step (asked) when it is asked.';

-- One open carrier's request per placement (what refund_requests_one_open held on the old status).
create function app.refund_request_one_open() returns trigger
language plpgsql security definer set search_path = app, pg_temp as $$
begin
  if new.automatic then return new; end if;
  perform pg_advisory_xact_lock(hashtextextended('refund_request_open:' || new.claim_home_id::text, 0));
  if exists (select 1 from app.refund_requests r
              where r.claim_home_id = new.claim_home_id and not r.automatic and r.status in ('pending_owner_approval', 'approved')) then
    raise exception 'a refund request is already open on placement %', new.claim_home_id
      using errcode = '23505', constraint = 'refund_requests_one_open';
  end if;
  return new;
end $$;
create trigger refund_request_asks_one_open before insert on app.refund_request_asks
  for each row execute function app.refund_request_one_open();
comment on function app.refund_request_one_open() is
  'Trigger: refuses a carrier''s refund request on a placement that has one pending or approved (unique_violation), asks serialised per placement.';

comment on table app.refund_request_asks is
  'A carrier''s request to the landlord to refund a settled payment of a home (POST refund-request), or the service''s own refund of a duplicate charge, as asked: never changed. Its life is in app.refund_request_changes; app.refund_requests reads both.';

-- The request with its life: the columns the old table had, in its order, derived from the steps,
-- and the steps themselves. security_invoker: the reader's row-level security applies to both tables.
create view app.refund_requests with (security_invoker = true) as
select a.id, a.org_id, a.environment, a.claim_id, a.claim_home_id, a.property_id, a.provider_org_id, a.payment_id, a.amount_cents,
       a.currency, a.covers_deposit, a.reason,
       life.status, life.decided_at, life.refunded_at, life.provider_ref, life.failure_reason,
       a.created_at, life.updated_at, a.automatic, a.purpose, a.goodwill, life.history
  from app.refund_request_asks a
 cross join lateral (
   select (array_agg(c.status order by c.seq desc))[1] as status,
          min(c.changed_at) filter (where c.status in ('approved', 'declined')) as decided_at,
          max(c.changed_at) filter (where c.status = 'refunded') as refunded_at,
          (array_agg(c.provider_ref order by c.seq desc) filter (where c.provider_ref is not null))[1] as provider_ref,
          -- Only while the request stands failed (a retry that issued it clears it, as before).
          (array_agg(c.failure_reason order by c.seq desc))[1] as failure_reason,
          max(c.changed_at) as updated_at,
          jsonb_agg(jsonb_build_object('status', c.status, 'at', c.changed_at, 'moved_by', c.moved_by) order by c.seq) as history
     from app.refund_request_changes c
    where c.request_id = a.id
 ) as life;
grant select on app.refund_requests to svc_api;
comment on view app.refund_requests is
  'Each refund request as asked (app.refund_request_asks) with its status and times derived from its steps (app.refund_request_changes): status is the last step''s; never written, only read.';
comment on column app.refund_requests.status is
  'The last step''s status: pending_owner_approval, approved (refund being issued), declined (a new request may follow), refunded, failed (the processor refused every attempt; a new request may follow, or the console''s retry issues it).';
comment on column app.refund_requests.decided_at is 'When the landlord (or the service, for its own refund) approved or declined: that step''s time.';
comment on column app.refund_requests.refunded_at is 'When the refund was issued: the refunded step''s time.';
comment on column app.refund_requests.provider_ref is 'The processor''s refund id, from the step that issued it.';
comment on column app.refund_requests.failure_reason is 'Why the refund failed, while the request stands failed.';
comment on column app.refund_requests.updated_at is 'When the last step was appended.';
comment on column app.refund_requests.history is 'Every step, oldest first: {status, at, moved_by}.';

do $$
declare v record;
begin
  for v in select name, definition from refund_request_readers loop
    execute format('create or replace view %s as %s', v.name, rtrim(v.definition, E'; \n'));
  end loop;
end $$;
drop table refund_request_readers;

-- What the changes now hold leaves the ask (their checks and the one-open index go with them).
alter table app.refund_request_asks
  drop column status,
  drop column decided_at,
  drop column refunded_at,
  drop column provider_ref,
  drop column failure_reason,
  drop column updated_at;
-- The one-open index was also how a placement's requests were found (the open one, the one-open
-- trigger, the placement read): by placement, now on every request.
create index refund_request_asks_placement on app.refund_request_asks (claim_home_id, created_at);
