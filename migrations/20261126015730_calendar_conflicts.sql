-- Nights an imported calendar takes that a stay booked here already holds. The import cannot undo
-- the booking (the service's hold stays, and the blocks of the feed are kept as read), so the
-- overlap is recorded here for a person to resolve: shown on the home and its readiness, and
-- announced to the provider once when it appears. A later fetch that no longer overlaps the stay
-- resolves it; the row is kept as the home's history.
create table app.calendar_conflicts (
  id uuid primary key default gen_random_uuid(),
  calendar_import_id uuid not null references app.calendar_imports (id) on delete cascade,
  property_id uuid not null,
  org_id uuid not null references app.organisations (id),
  environment text not null check (environment in ('live', 'sandbox')),
  lease_agreement_id uuid not null,
  start_date date not null,
  end_date date not null,
  detected_at timestamptz not null default clock_timestamp(),
  resolved_at timestamptz,
  check (end_date >= start_date),
  unique (calendar_import_id, lease_agreement_id, start_date, end_date),
  foreign key (property_id, org_id) references app.properties (id, org_id) on delete cascade
);
create index calendar_conflicts_open on app.calendar_conflicts (property_id, environment) where resolved_at is null;
comment on table app.calendar_conflicts is 'Nights an imported calendar takes that a stay booked here holds: the booking stands, a person resolves the clash.';
comment on column app.calendar_conflicts.calendar_import_id is 'The imported calendar whose range overlaps the stay.';
comment on column app.calendar_conflicts.lease_agreement_id is 'The stay here (its lease): the service hold it overlaps, held or booked.';
comment on column app.calendar_conflicts.start_date is 'First night both the feed and the stay take.';
comment on column app.calendar_conflicts.end_date is 'Last night (inclusive) both the feed and the stay take.';
comment on column app.calendar_conflicts.detected_at is 'When a fetch first found the overlap (again, after it was resolved).';
comment on column app.calendar_conflicts.resolved_at is 'When a later fetch no longer found it (the other channel dropped the nights, or the stay moved); null while open.';
select app.enable_tenant_isolation('app.calendar_conflicts');
grant select, insert, update on app.calendar_conflicts to svc_api;
