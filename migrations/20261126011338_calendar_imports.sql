-- Calendars of a home's other channels (Airbnb, Vrbo, a channel manager) imported here: each
-- registered iCalendar address is fetched on a schedule, and the nights its events take become
-- availability blocks of their own source (ical), replaced wholesale at each successful fetch so a
-- cancellation there frees the nights here. A failed fetch keeps the last good blocks and says so.
create table app.calendar_imports (
  id uuid primary key default gen_random_uuid(),
  property_id uuid not null,
  org_id uuid not null references app.organisations (id),
  environment text not null check (environment in ('live', 'sandbox')),
  url text not null check (length(url) <= 2048),
  name text check (length(name) <= 200),
  created_at timestamptz not null default clock_timestamp(),
  last_fetched_at timestamptz,
  last_success_at timestamptz,
  last_error text,
  consecutive_failures integer not null default 0 check (consecutive_failures >= 0),
  unique (property_id, environment, url),
  foreign key (property_id, org_id) references app.properties (id, org_id) on delete cascade
);
create index calendar_imports_home on app.calendar_imports (property_id, environment);
comment on table app.calendar_imports is 'iCalendar addresses of a home''s other channels, fetched on a schedule into blocks of source ical.';
comment on column app.calendar_imports.url is 'The https address of the other channel''s export, as registered (normalised); only public addresses are fetched.';
comment on column app.calendar_imports.name is 'The provider''s label for the channel (Airbnb, Vrbo, …).';
comment on column app.calendar_imports.last_fetched_at is 'When a fetch last ended, well or not.';
comment on column app.calendar_imports.last_success_at is 'When the blocks were last replaced by a fetch that read the feed.';
comment on column app.calendar_imports.last_error is 'Why the last fetch failed (null after a success): the blocks of the last success stay in force.';
comment on column app.calendar_imports.consecutive_failures is 'Failed fetches since the last success.';
select app.enable_tenant_isolation('app.calendar_imports');
grant select, insert, update, delete on app.calendar_imports to svc_api;

alter table app.availability_blocks drop constraint availability_blocks_source_check;
alter table app.availability_blocks add constraint availability_blocks_source_check check (source in ('provider', 'service', 'ical'));
alter table app.availability_blocks add column calendar_import_id uuid references app.calendar_imports (id) on delete cascade;
alter table app.availability_blocks add constraint availability_blocks_ical_import check ((source = 'ical') = (calendar_import_id is not null));
create index availability_blocks_import on app.availability_blocks (calendar_import_id) where calendar_import_id is not null;
comment on column app.availability_blocks.source is 'provider: set by the provider; service: a hold the service took for a lease or booking; ical: a range read from another channel''s calendar (calendar_import_id).';
comment on column app.availability_blocks.calendar_import_id is 'For ical blocks: the imported calendar they were read from (replaced at each of its successful fetches, removed with it).';
