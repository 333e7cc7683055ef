-- Sourcing as a durable job.
--
-- A request's first sourcing round is now run by a job queued with the request (kind
-- source_new_requests in app.jobs), so creation answers before matching and the crawl run. A job runs
-- again when its runner dies mid-way; the index below makes a second opening round for one request
-- impossible, whatever runs it.
create unique index sourcing_rounds_opened_once on app.sourcing_rounds (claim_id) where trigger = 'opened';
comment on index app.sourcing_rounds_opened_once is 'A request has at most one opening round (the sourcing job may run twice; it never sources twice).';
