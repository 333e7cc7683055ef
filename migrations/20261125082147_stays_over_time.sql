-- The stay over time, part 1: a home is committed by the nights of each stay, a stay that ends is
-- closed out, and a sandbox organisation can run on a clock of its own.
--
-- - A home is no longer committed to one request for ever: app.claim_homes_one_commitment goes, and
--   the nights a stay holds (app.availability_blocks, service holds, already kept disjoint by the
--   exclusion constraint availability_service_holds_disjoint) are the only commitment. Any number of
--   stays follow one another on one home; two placements racing for overlapping nights still
--   resolve exactly, through that constraint.
-- - A service hold covers the nights of the stay, [move_in, move_out): its inclusive end_date is the
--   day before move-out, so the move-out day is free for the next check-in. Existing holds (which
--   covered the move-out day too) give that day back.
-- - A stay whose move-out date has come is closed out: its booking becomes completed and its holds
--   are kept, marked completed, as the home's past calendar.
-- - app.sandbox_clocks: a sandbox organisation's frozen time (in the manner of a processor's test
--   clocks). Date rules of its sandbox requests read it, and jobs scheduled for a later time wait
--   for the clock (app.jobs.clock_run_at) instead of the wall clock.

drop index app.claim_homes_one_commitment;
comment on column app.claim_homes.committed_at is
  'When the home was committed to this request (placed, or the application approved). The home''s nights are held only once dates are set (service holds, disjoint per home and environment).';

update app.availability_blocks set end_date = end_date - 1 where source = 'service' and end_date > start_date;
comment on column app.availability_blocks.end_date is
  'Inclusive last day. A service hold ends on the stay''s last night (the day before move-out): the move-out day is free for the next check-in.';

alter table app.availability_blocks drop constraint availability_blocks_held_for_check;
alter table app.availability_blocks add constraint availability_blocks_held_for
  check (held_for in ('lease', 'booking', 'completed'));
comment on column app.availability_blocks.held_for is
  'For service holds: lease (dates set, not paid), booking (the first payment cleared), completed (the stay is over; kept as the home''s history).';

alter table app.bookings drop constraint bookings_booking_status_check;
alter table app.bookings
  add constraint bookings_booking_status check (booking_status in ('confirmed', 'cancelled', 'completed')),
  add column completed_at timestamptz,
  add constraint bookings_completed check ((booking_status = 'completed') = (completed_at is not null));
comment on column app.bookings.booking_status is 'confirmed, cancelled, or completed (the stay reached its move-out date).';
comment on column app.bookings.completed_at is 'When the stay was closed out (its move-out date came); set exactly when booking_status is completed.';

-- Locks a home's calendar (its row) until the end of the calling transaction, as app.range_is_free
-- does, taken by a command before it writes the rows that name the home (which take a key-share lock
-- on it): two placements of one home then queue for the calendar instead of deadlocking on it.
create function app.lock_calendar(p_property uuid) returns void
language plpgsql security definer set search_path = app, pg_temp as $$
begin
  perform 1 from app.properties where id = p_property for update;
end $$;
grant execute on function app.lock_calendar(uuid) to svc_api;
comment on function app.lock_calendar(uuid) is 'Locks a home''s calendar for the calling transaction (placements of one home queue for it).';

-- The holds of a contract become the home's past when its stay is closed out. Security definer:
-- the blocks belong to the home's owner.
create function app.complete_holds(p_lease_agreement uuid, p_env text) returns integer
language sql security definer set search_path = app, pg_temp as $$
  with done as (
    update app.availability_blocks set held_for = 'completed'
     where lease_agreement_id = p_lease_agreement and environment = p_env and source = 'service'
    returning 1)
  select count(*)::integer from done
$$;
grant execute on function app.complete_holds(uuid, text) to svc_api;
comment on function app.complete_holds(uuid, text) is 'Marks a closed-out stay''s holds completed (the home''s past calendar).';

create table app.sandbox_clocks (
  org_id uuid primary key references app.organisations (id),
  environment text not null default 'sandbox' check (environment = 'sandbox'),
  frozen_time timestamptz not null,
  created_at timestamptz not null default clock_timestamp(),
  advanced_at timestamptz
);
select app.enable_tenant_isolation('app.sandbox_clocks');
grant select, insert, update, delete on app.sandbox_clocks to svc_api;
comment on table app.sandbox_clocks is
  'A sandbox organisation''s own time (POST /sandbox/clock): its requests'' date rules and scheduled jobs follow it. Live keys never see it.';
comment on column app.sandbox_clocks.frozen_time is 'The time the organisation''s sandbox sees; moves only when advanced.';
comment on column app.sandbox_clocks.advanced_at is 'When it was last advanced (wall clock).';

alter table app.jobs add column clock_run_at timestamptz;
comment on column app.jobs.clock_run_at is
  'For a job of an organisation on a sandbox clock: when it falls due on that clock. Until the clock reaches it, run_at is infinity.';
create index jobs_on_clock on app.jobs (org_id, clock_run_at) where status = 'pending' and clock_run_at is not null;

-- The time the calling tenant sees: its sandbox clock, or the wall clock.
create function app.clock_now() returns timestamptz
language sql stable set search_path = app, pg_temp as $$
  select coalesce((select frozen_time from app.sandbox_clocks where org_id = app.current_org() and environment = app.current_env()), now())
$$;
grant execute on function app.clock_now() to svc_api;
comment on function app.clock_now() is 'Now for the calling tenant: its sandbox clock''s frozen time, else the wall clock.';

-- Moves the calling sandbox organisation's clock to p_time (never back) and makes due the jobs that
-- waited for it; returns their ids, for the caller to run. Security definer: the API role only
-- inserts jobs.
create function app.advance_clock(p_time timestamptz) returns uuid[]
language plpgsql security definer set search_path = app, pg_temp as $$
declare v_due uuid[];
begin
  update app.sandbox_clocks set frozen_time = p_time, advanced_at = clock_timestamp()
   where org_id = app.current_org() and environment = 'sandbox' and app.current_env() = 'sandbox' and frozen_time <= p_time;
  if not found then return null; end if;
  with due as (
    update app.jobs set run_at = now(), clock_run_at = null
     where org_id = app.current_org() and environment = 'sandbox' and status = 'pending' and clock_run_at <= p_time
    returning id)
  select coalesce(array_agg(id), '{}') into v_due from due;
  return v_due;
end $$;

-- Removes the calling organisation's clock: the jobs that waited for it fall due on the wall clock
-- at the time they were scheduled for.
create function app.remove_clock() returns boolean
language plpgsql security definer set search_path = app, pg_temp as $$
begin
  delete from app.sandbox_clocks where org_id = app.current_org() and environment = 'sandbox' and app.current_env() = 'sandbox';
  if not found then return false; end if;
  update app.jobs set run_at = greatest(clock_run_at, now()), clock_run_at = null
   where org_id = app.current_org() and environment = 'sandbox' and status = 'pending' and clock_run_at is not null;
  return true;
end $$;
grant execute on function app.advance_clock(timestamptz), app.remove_clock() to svc_api;
comment on function app.advance_clock(timestamptz) is 'Moves the calling sandbox organisation''s clock forward and makes due the jobs that waited for it.';
comment on function app.remove_clock() is 'Removes the calling sandbox organisation''s clock; its waiting jobs fall due on the wall clock.';
