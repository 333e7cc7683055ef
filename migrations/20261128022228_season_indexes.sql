-- Reads that stay flat at a season's volume (90 days of a catastrophe: millions of events and
-- deliveries, tens of thousands of placements). Each index serves one read that otherwise walks the
-- tenant's whole history; tests/plans/season-plans.test.ts holds each plan.
--
-- On a database already that large each CREATE INDEX blocks writes to its table while it builds
-- (seconds per million rows); run this migration in a quiet hour.

-- The event log filtered by type (GET /events?event=...). Read per name, newest first, by the query
-- in functions/events/repository.ts: one ordered, limited scan of this index per name, merged. Along
-- events_feed a name the tenant has few or no events of walks all of its events, and a prepared
-- statement's generic plan does exactly that for every name.
create index events_by_type on app.events (org_id, environment, event, created_at desc, id desc);

-- The timeline's money entries (GET /claims/{reference}/timeline) read a request's bookings and
-- payments by claim_id: without these, every call filters all the carrier's bookings and reads
-- app.payments whole. Payments without a request (none today) stay out of the index.
create index bookings_claim on app.bookings (claim_id);
create index payments_claim on app.payments (claim_id) where claim_id is not null;

-- An endpoint's deliveries in one status (GET /webhooks/deliveries?endpoint_id=...&status=...):
-- along webhook_deliveries_endpoint a status the endpoint rarely or never had walks its whole 90 days.
create index webhook_deliveries_endpoint_status on app.webhook_deliveries (endpoint_id, status, created_at desc, id desc);
