-- A message to the household that did not go out, as it failed: the household's link of a home sent
-- to it, when the deployment has no email configured (nothing is queued, and the send says so) or
-- when its send job has spent its attempts. The placement's timeline reads it
-- (household_link.undelivered) and the carrier receives the event of the same name. Append-only,
-- like the other records the timeline is made of: a later send that works is its own fact.
create table app.undelivered_messages (
  id uuid primary key default gen_random_uuid(),
  org_id uuid not null references app.organisations (id),
  environment text not null check (environment in ('live', 'sandbox')),
  claim_id uuid not null,
  property_id uuid not null,
  claim_home_id uuid not null references app.claim_homes (id),
  topic text not null,
  reason text not null check (reason in ('not_configured', 'failed')),
  error text not null,
  attempts integer not null default 0,
  link_issued_at timestamptz,
  failed_at timestamptz not null default clock_timestamp()
);
create index undelivered_messages_claim on app.undelivered_messages (claim_id, failed_at);
select app.enable_tenant_isolation('app.undelivered_messages');
-- Written by the send (the carrier's request) and the send job, both as the carrier's tenant; never changed.
grant select, insert on app.undelivered_messages to svc_api;

comment on table app.undelivered_messages is
  'Messages to the household that did not go out (the household''s link), as they failed: not configured (nothing sent) or the send job abandoned. Append-only; the timeline entry household_link.undelivered reads it.';
comment on column app.undelivered_messages.org_id is 'The carrier organisation whose request the message was for.';
comment on column app.undelivered_messages.claim_home_id is 'The placement (the home on the request) the message was about.';
comment on column app.undelivered_messages.topic is 'Why the message was to be sent, as the email''s topic (home.offered: the household''s link).';
comment on column app.undelivered_messages.reason is 'not_configured: the deployment has no email settings, nothing was sent; failed: the send job spent its attempts.';
comment on column app.undelivered_messages.error is 'What stopped it, in words: the missing settings, or the last attempt''s error.';
comment on column app.undelivered_messages.attempts is 'Send attempts made (0 when nothing could be attempted).';
comment on column app.undelivered_messages.link_issued_at is 'The issue of the household''s link the message carried (links of earlier issues no longer work).';
comment on column app.undelivered_messages.failed_at is 'When it was recorded.';
