-- Amendments on the record.
--
-- Each PATCH /claims/{reference} that changed something, for the request's timeline (request.amended).
-- Personal fields (contact details, accessibility needs, the pet description) are listed by name only:
-- their values are never copied here.
create table app.claim_amendments (
  id uuid primary key default gen_random_uuid(),
  org_id uuid not null references app.organisations (id),
  environment text not null check (environment in ('live', 'sandbox')),
  claim_id uuid not null,
  fields text[] not null check (cardinality(fields) > 0),
  changes jsonb not null default '{}' check (jsonb_typeof(changes) = 'object'),
  created_at timestamptz not null default clock_timestamp(),
  foreign key (claim_id, org_id, environment) references app.claims (id, org_id, environment)
);
create index claim_amendments_claim on app.claim_amendments (claim_id, created_at);
select app.enable_tenant_isolation('app.claim_amendments'::regclass);
grant select, insert on app.claim_amendments to svc_api;

comment on table app.claim_amendments is 'Each amendment of a housing request (PATCH) that changed a field: the request.amended timeline entries.';
comment on column app.claim_amendments.fields is 'Names (as the API spells them) of every field the amendment changed, personal ones included.';
comment on column app.claim_amendments.changes is 'For the non-personal changed fields only: {"field": {"from": old, "to": new}} as the API renders them.';
