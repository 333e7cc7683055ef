-- Read-only views for the service's staff in Supabase Studio, answering the questions they ask:
-- open requests by status and days open, placements in flight and what each waits on, webhook
-- deliveries failing per endpoint, and homes not listed and why.
--
-- They read every tenant (they run as their owner, which row-level security does not limit), so the
-- schema is readable only by the roles Studio and staff tooling use (postgres, service_role,
-- supabase_admin) and never by the API's role (svc_api) or Supabase's anon/authenticated roles.
-- Roles missing locally are created without login so the grants mean the same everywhere.

do $$
declare r text;
begin
  foreach r in array array['service_role', 'supabase_admin'] loop
    if not exists (select 1 from pg_roles where rolname = r) then
      execute format('create role %I nologin', r);
    end if;
  end loop;
end $$;

create schema if not exists staff;
comment on schema staff is 'Read-only views for the service''s staff (Supabase Studio): open requests, placements in flight, failing webhook deliveries, homes not listed. Every tenant, both environments. Not readable by the API (svc_api) or anon/authenticated.';
revoke all on schema staff from public;

-- Open requests -----------------------------------------------------------------------------------

create view staff.open_requests as
select c.claim_ref,
       o.name as organisation,
       c.org_id,
       c.environment,
       c.status_primary as status,
       floor(extract(epoch from now() - c.created_at) / 86400)::integer as days_open,
       c.priority,
       c.target_move_in,
       c.target_move_in - current_date as days_to_target_move_in,
       app.coordinator_of(c) as coordinator,
       (select count(*) from app.claim_homes h where h.claim_id = c.id and h.cancelled_at is null)::integer as homes_on_request,
       c.opened_via,
       c.created_at,
       c.updated_at
  from app.claims c
  join app.organisations o on o.id = c.org_id
 where c.status_primary <> 'move_out_closeout';
comment on view staff.open_requests is 'Every housing request not yet closed out (status other than move_out_closeout); sort by days_open descending for the oldest. Both environments: filter on environment = ''live'' for real households.';
comment on column staff.open_requests.days_open is 'Whole days since the request was opened.';
comment on column staff.open_requests.days_to_target_move_in is 'Days until the household needs to move in (negative: overdue).';
comment on column staff.open_requests.coordinator is 'Who sources the request (its own coordinator, else the organisation''s); null: nobody assigned yet.';
comment on column staff.open_requests.homes_on_request is 'Homes put on the request and not cancelled.';
comment on column staff.open_requests.opened_via is 'api, or service (opened by a coordinator; the carrier''s API does not show it).';

create view staff.open_requests_by_status as
select environment,
       status,
       count(*)::integer as requests,
       max(days_open) as oldest_days_open,
       (percentile_disc(0.5) within group (order by days_open))::integer as median_days_open,
       count(*) filter (where priority = 'urgent')::integer as urgent,
       count(*) filter (where days_to_target_move_in < 0)::integer as past_target_move_in,
       count(*) filter (where coordinator is null)::integer as without_coordinator
  from staff.open_requests
 group by environment, status
 order by environment, array_position(array[
   'housing_needs_collected', 'housing_options_found', 'options_sent', 'awaiting_approval',
   'landlord_approval', 'lease_execution', 'lease_signed', 'payment_setup', 'booking_confirmed',
   'move_in_complete', 'in_stay'], status);
comment on view staff.open_requests_by_status is 'Open requests counted per environment and status, in lifecycle order, with how long they have been open.';
comment on column staff.open_requests_by_status.oldest_days_open is 'Days open of the oldest request in that status.';
comment on column staff.open_requests_by_status.median_days_open is 'Median days open of the requests in that status.';
comment on column staff.open_requests_by_status.past_target_move_in is 'Requests whose target move-in date has passed.';
comment on column staff.open_requests_by_status.without_coordinator is 'Requests nobody is assigned to source.';

-- Placements in flight ----------------------------------------------------------------------------

create view staff.placements_in_flight as
select c.claim_ref,
       carrier.name as carrier,
       h.environment,
       c.status_primary as request_status,
       h.property_id,
       p.name as home,
       provider.name as provider,
       h.option_status,
       h.lease_status,
       h.move_in_date,
       case
         when h.lease_status is null then 'lease to be prepared (dates set, no lease yet)'
         when h.lease_status = 'awaiting_lease' then 'lease to be sent for signature'
         when h.lease_status = 'sent_for_signature' then 'policyholder''s signature'
         when h.lease_status = 'policyholder_signed' then 'landlord''s signature'
         when c.status_primary in ('lease_execution', 'lease_signed') then 'payment setup'
         when c.status_primary = 'payment_setup' then 'first payment'
         when h.move_in_date is null then 'move-in date'
         else 'move-in on ' || h.move_in_date::text
       end as waits_on,
       floor(extract(epoch from now() - h.updated_at) / 86400)::integer as days_since_last_change,
       h.added_at
  from app.claim_homes h
  join app.claims c on c.id = h.claim_id
  join app.organisations carrier on carrier.id = h.org_id
  join app.properties p on p.id = h.property_id
  join app.organisations provider on provider.id = p.org_id
 where h.cancelled_at is null
   and (h.lease_status is not null or h.move_in_date is not null)
   and c.status_primary not in ('move_in_complete', 'in_stay', 'move_out_closeout');
comment on view staff.placements_in_flight is 'Homes with dates or a lease under way on requests whose household has not moved in yet, not cancelled, and the step each waits on.';
comment on column staff.placements_in_flight.waits_on is 'The next step: the lease being prepared or sent, a signature, payment, or the move-in.';
comment on column staff.placements_in_flight.days_since_last_change is 'Whole days since the placement last changed: a high number means it is stuck.';

-- Failing webhook deliveries ----------------------------------------------------------------------

create view staff.failing_deliveries_by_endpoint as
with recent as (
  select d.endpoint_id,
         count(*) filter (where d.status = 'pending' and d.attempts > 0)::integer as retrying,
         count(*) filter (where d.status = 'abandoned' and d.completed_at > now() - interval '7 days')::integer as abandoned_7d,
         count(*) filter (where d.status = 'succeeded' and d.completed_at > now() - interval '7 days')::integer as succeeded_7d,
         min(d.next_attempt_at) filter (where d.status = 'pending' and d.attempts > 0) as next_retry_at
    from app.webhook_deliveries d
   where d.status = 'pending' or d.completed_at > now() - interval '7 days'
   group by d.endpoint_id
)
select o.name as organisation,
       w.org_id,
       w.environment,
       w.id as endpoint_id,
       w.url,
       w.is_active,
       r.retrying,
       r.abandoned_7d,
       r.succeeded_7d,
       r.next_retry_at,
       last.at as last_failure_at,
       last.http_status as last_failure_http_status,
       last.error as last_failure_error
  from recent r
  join app.webhook_endpoints w on w.id = r.endpoint_id
  join app.organisations o on o.id = w.org_id
  left join lateral (
    select (a ->> 'at')::timestamptz as at, (a ->> 'http_status')::integer as http_status, a ->> 'error' as error
      from app.webhook_deliveries d, jsonb_array_elements(d.history) a
     where d.endpoint_id = w.id and (d.status = 'pending' or d.completed_at > now() - interval '7 days')
       and a ->> 'outcome' <> 'succeeded'
     order by (a ->> 'at')::timestamptz desc
     limit 1
  ) last on true
 where r.retrying > 0 or r.abandoned_7d > 0
 order by r.retrying + r.abandoned_7d desc;
comment on view staff.failing_deliveries_by_endpoint is 'Webhook endpoints with deliveries failing now (retrying) or given up in the last 7 days, most failures first, with the last failure.';
comment on column staff.failing_deliveries_by_endpoint.retrying is 'Deliveries waiting for a retry after a failed attempt.';
comment on column staff.failing_deliveries_by_endpoint.abandoned_7d is 'Deliveries abandoned (retry schedule used up) in the last 7 days.';
comment on column staff.failing_deliveries_by_endpoint.succeeded_7d is 'Deliveries that succeeded in the last 7 days, for comparison.';
comment on column staff.failing_deliveries_by_endpoint.next_retry_at is 'When the next retry to this endpoint is due.';
comment on column staff.failing_deliveries_by_endpoint.last_failure_http_status is 'HTTP status of the last failed attempt; null: no answer (see last_failure_error).';
comment on column staff.failing_deliveries_by_endpoint.last_failure_error is 'Error of the last failed attempt (time-out, refused connection, address not allowed, ...).';

-- Homes not listed --------------------------------------------------------------------------------

create view staff.homes_not_listed as
select o.name as provider,
       p.org_id,
       p.environment,
       p.id as property_id,
       p.external_id,
       p.name as home,
       p.city,
       p.state,
       p.listed,
       p.verified,
       p.status,
       array_remove(
         array(select 'missing ' || f from unnest(p.missing_fields) f)
         || array[
           case when p.status = 'unavailable' then 'marked unavailable by the provider' end,
           case when p.geo_point is null then 'no location: no coordinates and a ZIP that is not known' end,
           case when not app.can_take_charges(p.org_id, p.environment) then 'payout account cannot take charges in ' || p.environment end
         ], null) as reasons,
       p.missing_fields,
       p.updated_at
  from app.properties p
  join app.organisations o on o.id = p.org_id
 where not p.verified
    or p.status = 'unavailable'
    or p.geo_point is null
    or not app.can_take_charges(p.org_id, p.environment);
comment on view staff.homes_not_listed is 'Homes matching cannot offer, and why: an incomplete listing (each missing field), marked unavailable, no location, or a provider whose payout account cannot take charges.';
comment on column staff.homes_not_listed.reasons is 'Every reason the home is not offered, in words.';
comment on column staff.homes_not_listed.missing_fields is 'API field names the listing still lacks.';

-- Access ------------------------------------------------------------------------------------------

do $$
declare r text;
begin
  foreach r in array array['postgres', 'service_role', 'supabase_admin'] loop
    if exists (select 1 from pg_roles where rolname = r) then
      execute format('grant usage on schema staff to %I', r);
      execute format('grant select on all tables in schema staff to %I', r);
      execute format('alter default privileges in schema staff grant select on tables to %I', r);
    end if;
  end loop;
  foreach r in array array['svc_api', 'anon', 'authenticated'] loop
    if exists (select 1 from pg_roles where rolname = r) then
      execute format('revoke all on schema staff from %I', r);
      execute format('revoke all on all tables in schema staff from %I', r);
    end if;
  end loop;
end $$;
