-- The console's `listen`: a sandbox organisation's events forwarded to a local address (a laptop's
-- receiver, plain http, no certificate), signed as deliveries are. What it keeps between runs:
--
-- - app.event_forwarding_secrets: the one signing secret the forwarder signs an organisation's
--   sandbox events with (`listen --print-secret` prints it), made at first use and kept, so a
--   receiver configured once keeps verifying across restarts.
-- - app.event_forwarding_cursors: how far the forwarder has read the log, per organisation and
--   local address, so that a restart goes on where the last run stopped, missing and repeating
--   nothing. The log is read newest first from a moment a little before the last event forwarded
--   (an event recorded earlier than another may commit after it), and `recent` holds the ids
--   forwarded since then, which are not forwarded again.
--
-- Console only (it runs as the owner): the API role gets nothing here. Sandbox only: live events
-- reach live endpoints, https and public, through the dispatcher alone.

create table app.event_forwarding_secrets (
  org_id uuid not null references app.organisations (id) on delete cascade,
  environment text not null check (environment = 'sandbox'),
  signing_secret text not null check (signing_secret ~ '^whsec_[A-Za-z0-9]{32,}$'),
  created_at timestamptz not null default clock_timestamp(),
  primary key (org_id, environment)
);
select app.enable_tenant_isolation('app.event_forwarding_secrets');
comment on table app.event_forwarding_secrets is
  'The signing secret the console''s listen signs an organisation''s sandbox events with when it forwards them to a local address (listen --print-secret prints it).';
comment on column app.event_forwarding_secrets.org_id is 'The organisation whose sandbox events are forwarded.';
comment on column app.event_forwarding_secrets.environment is 'Always sandbox: the forwarder never sends live events.';
comment on column app.event_forwarding_secrets.signing_secret is 'whsec_ and 32 random characters; used exactly as an endpoint''s secret is (the X-Service-Signature key).';

create table app.event_forwarding_cursors (
  org_id uuid not null references app.organisations (id) on delete cascade,
  environment text not null check (environment = 'sandbox'),
  forward_to text not null,
  started_at text not null,
  position text not null,
  recent jsonb not null default '[]'::jsonb,
  forwarded bigint not null default 0,
  updated_at timestamptz not null default clock_timestamp(),
  primary key (org_id, environment, forward_to)
);
select app.enable_tenant_isolation('app.event_forwarding_cursors');
comment on table app.event_forwarding_cursors is
  'How far the console''s listen has forwarded an organisation''s sandbox event log to one local address: a restart resumes here, without loss or repeat.';
comment on column app.event_forwarding_cursors.org_id is 'The organisation whose sandbox events are forwarded.';
comment on column app.event_forwarding_cursors.environment is 'Always sandbox.';
comment on column app.event_forwarding_cursors.forward_to is 'The local address events are POSTed to, as given to listen --forward-to.';
comment on column app.event_forwarding_cursors.started_at is 'The first run''s start (the event log''s exact timestamp text): events recorded before it are never forwarded.';
comment on column app.event_forwarding_cursors.position is 'The recording time (exact timestamp text) of the newest event forwarded, or started_at before the first.';
comment on column app.event_forwarding_cursors.recent is 'The ids and recording times of the events forwarded in the look-back before position: read again, they are not forwarded twice.';
comment on column app.event_forwarding_cursors.forwarded is 'How many events were forwarded to this address in all.';
