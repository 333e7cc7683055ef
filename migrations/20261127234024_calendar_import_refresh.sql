-- A refresh of an imported calendar queues one fetch: while the one it queued has not started, a
-- second refresh is the same request (fetching twice would read the same feed twice). The fetch
-- queued last by a refresh (or by the registration, which fetches at once) is kept on the feed.
alter table app.calendar_imports add column refresh_job_id uuid references app.jobs (id) on delete set null;
comment on column app.calendar_imports.refresh_job_id is 'The fetch queued last by a refresh or the registration; a refresh while it has not started queues none.';
