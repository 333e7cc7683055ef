-- Descriptions for Supabase Studio: every table, every column whose meaning is not evident from its
-- name, and every function of the `app` schema. Studio shows them in the Table Editor and the
-- definition panes. Columns named id, org_id (the owning organisation), environment (live or
-- sandbox), created_at, updated_at and a few plain attributes need none (the test in
-- tests/operations/comments.test.ts lists them); every other new column needs a comment.

comment on schema app is 'The service''s private schema: not exposed by the REST API, no grants to anon/authenticated. The API runs as svc_api under row-level security (one organisation and environment per transaction); Studio reads it as the owner and sees every tenant. Every tenant row carries org_id and environment (live or sandbox).';

-- Foundation ------------------------------------------------------------------------------------

comment on table app.organisations is 'Customers of the service: carriers (insurers and their TPAs, who open housing requests) and providers (landlords, who list homes). Created with the operator console.';
comment on column app.organisations.side is 'carrier (opens housing requests) or provider (lists homes); decides which scopes its keys may have.';

comment on table app.api_keys is 'API keys, created and revoked with the operator console. Only the SHA-256 of a key is stored; the key is shown once.';
comment on column app.api_keys.key_hash is 'SHA-256 (hex) of the full key; the API looks keys up by it.';
comment on column app.api_keys.key_prefix is 'First characters of the key (svc_pk_/svc_sk_ plus four), to recognise a key without storing it.';
comment on column app.api_keys.name is 'Operator''s label for the key.';
comment on column app.api_keys.scopes is 'Scopes the key grants (claims:read, webhooks:manage, ...); a route refuses a key without its scope (403).';
comment on column app.api_keys.user_email is 'Set for a key issued to one person; the API refuses such keys (401 invalid_key): integrations use organisation keys.';
comment on column app.api_keys.rate_limit_per_minute is 'The key''s own per-minute limit, set with `admin key limit`; null: the environment''s default (app.default_rate_limit).';
comment on column app.api_keys.last_used_at is 'Last authenticated request, to the minute.';
comment on column app.api_keys.revoked_at is 'When the key was revoked; a revoked key is refused (401 invalid_key).';

comment on table app.rate_windows is 'Rate limiter state: one fixed one-minute window per bucket (a key, or an address that failed authentication). Bookkeeping, overwritten every minute.';
comment on column app.rate_windows.bucket is 'key:<api key id> or addr:<client address> (failed authentications).';
comment on column app.rate_windows.window_start is 'Start of the current one-minute window.';
comment on column app.rate_windows.count is 'Requests counted in the window so far.';

comment on table app.idempotency_keys is 'Idempotency-Key records of writes: the first response is stored and replayed to retries with the same key and body for 48 hours, per organisation and environment.';
comment on column app.idempotency_keys.key is 'The Idempotency-Key header sent by the caller.';
comment on column app.idempotency_keys.fingerprint is 'Hash of method, path and body; a retry with another body is refused (409 idempotency_key_reused).';
comment on column app.idempotency_keys.state is 'in_progress while the first request runs, done once its response is stored.';
comment on column app.idempotency_keys.locked_until is 'While in_progress: until when the first request holds the key; a claim left by a worker that died is taken over after it.';
comment on column app.idempotency_keys.response_status is 'HTTP status of the stored response.';
comment on column app.idempotency_keys.response_content_type is 'Content-Type of the stored response.';
comment on column app.idempotency_keys.response_body is 'Body of the stored response, replayed to retries.';

comment on table app.usage_daily is 'Requests per key, day and status class (2xx/3xx/4xx/5xx): what GET /usage reports.';
comment on column app.usage_daily.key_id is 'The API key that made the requests.';
comment on column app.usage_daily.day is 'UTC day.';
comment on column app.usage_daily.status_class is 'Class of the response status: 2xx, 3xx, 4xx or 5xx.';
comment on column app.usage_daily.count is 'Requests of that key, day and class.';

comment on table app.events is 'The events outbox and event log: everything the service announces (GET /events, webhooks). Written in the transaction of the change; kept 90 days (app.purge_expired_events).';
comment on column app.events.event is 'Event type, e.g. claim.created, placement.lease_signed (see the event registry in docs).';
comment on column app.events.payload is 'The event''s data object, as delivered in webhooks.';
comment on column app.events.simulated is 'Raised by the sandbox simulate endpoint, not by a real change; only ever in sandbox.';

-- Providers -------------------------------------------------------------------------------------

comment on table app.properties is 'Homes listed by providers (the API''s /properties). Listing readiness (listed, verified, missing_fields) is kept by a trigger from the row itself.';
comment on column app.properties.external_id is 'The provider''s own reference for the home; unique per organisation and environment.';
comment on column app.properties.name is 'Display name of the home.';
comment on column app.properties.latitude is 'Given coordinates; without them the home is located at its ZIP''s centroid (geo_point).';
comment on column app.properties.longitude is 'Given coordinates; without them the home is located at its ZIP''s centroid (geo_point).';
comment on column app.properties.monthly_rate_cents is 'Monthly rent in cents of currency.';
comment on column app.properties.rent_1_3_months_cents is 'Monthly rent for stays of 1 to 3 months, in cents; null: monthly_rate applies.';
comment on column app.properties.rent_4_6_months_cents is 'Monthly rent for stays of 4 to 6 months, in cents; null: monthly_rate applies.';
comment on column app.properties.rent_7_9_months_cents is 'Monthly rent for stays of 7 to 9 months, in cents; null: monthly_rate applies.';
comment on column app.properties.rent_10_12_months_cents is 'Monthly rent for stays of 10 to 12 months, in cents; null: monthly_rate applies.';
comment on column app.properties.furnished_status is 'furnished, partial or unfurnished; null: not said (missing for listing).';
comment on column app.properties.available_from is 'First date the home can be moved into.';
comment on column app.properties.security_deposit_cents is 'In cents; 0: none, null: not said (missing for listing).';
comment on column app.properties.cleaning_fee_cents is 'In cents; 0: none, null: not said (missing for listing).';
comment on column app.properties.application_fee_cents is 'In cents; 0: none, null: not said (missing for listing).';
comment on column app.properties.pet_fee_cents is 'One-off pet fee in cents; 0: none, null: not said (missing for listing).';
comment on column app.properties.pet_rent_cents is 'Monthly pet rent in cents (not required for listing).';
comment on column app.properties.pet_deposit_cents is 'Refundable pet deposit in cents (not required for listing).';
comment on column app.properties.utilities_included is 'Whether rent includes utilities; null: not said.';
comment on column app.properties.utilities_monthly_cents is 'Monthly utilities estimate in cents when not included.';
comment on column app.properties.contract_template is 'standard: the service''s lease template; own: the provider''s own lease.';
comment on column app.properties.image_urls is 'Photos of the home (at least one needed for listing).';
comment on column app.properties.amenities is 'Amenity names (at least one needed for listing).';
comment on column app.properties.pet_policy is 'The provider''s pet policy in words (needed for listing).';
comment on column app.properties.status is 'Provider-set: available, pending or unavailable (unavailable homes are never matched).';
comment on column app.properties.listed is 'Kept by trigger: the listing is complete (missing_fields is empty). Never written by callers.';
comment on column app.properties.verified is 'Kept by trigger: listed and availability readable; only verified homes are matched.';
comment on column app.properties.missing_fields is 'Kept by trigger: API field names the listing still lacks, in the specification''s order (app.listing_missing_fields).';
comment on column app.properties.calendar_synced_at is 'Last write of the home''s calendar by the bulk sync (POST /properties/availability).';
comment on column app.properties.geo_point is 'Kept by trigger: the home''s point on the earth (earthdistance cube) from its coordinates, else its ZIP centroid; null: cannot be matched by distance.';

comment on table app.availability_blocks is 'Dates a home cannot be booked, per environment: blocks the provider set, and holds the service took for a lease or booking (which never overlap one another).';
comment on column app.availability_blocks.org_id is 'The home''s owner (the provider).';
comment on column app.availability_blocks.environment is 'The block''s own environment, which may differ from the home''s: a sandbox placement may hold a real home. Availability of one environment never shows in the other.';
comment on column app.availability_blocks.start_date is 'First blocked date.';
comment on column app.availability_blocks.end_date is 'Last blocked date (inclusive).';
comment on column app.availability_blocks.reason is 'Free-text reason given by the provider, or the service''s note on a hold.';
comment on column app.availability_blocks.source is 'provider: set by the provider; service: a hold the service took for a lease or booking.';
comment on column app.availability_blocks.lease_agreement_id is 'For service holds: the lease agreement the hold is for (released with it).';

comment on table app.payout_accounts is 'A provider''s payout account state per environment, as the payment processor reports it. No row: the environment''s starting state (see app.payout_status).';
comment on column app.payout_accounts.connected is 'The provider has connected a processor account.';
comment on column app.payout_accounts.charges_enabled is 'The account can take charges; until then no family is placed in the provider''s homes.';
comment on column app.payout_accounts.payouts_enabled is 'The processor pays out to the provider''s bank account.';
comment on column app.payout_accounts.onboarding_status is 'not_started, pending or complete: the provider''s onboarding with the processor.';
comment on column app.payout_accounts.bank_account_last4 is 'Last four digits of the payout bank account.';
comment on column app.payout_accounts.processor_account_id is 'The payment processor''s id of the connected account.';

comment on table app.bookings is 'A family booked into a provider''s home. org_id is the provider; the carrier that placed the family (carrier_org_id) reads it too.';
comment on column app.bookings.org_id is 'The provider (the home''s owner).';
comment on column app.bookings.environment is 'The placement''s environment: a sandbox booking of a real home stays in sandbox.';
comment on column app.bookings.carrier_org_id is 'The carrier whose request placed the family.';
comment on column app.bookings.lease_agreement_id is 'The lease agreement the booking comes from.';
comment on column app.bookings.booking_status is 'confirmed or cancelled.';
comment on column app.bookings.check_in is 'Move-in date.';
comment on column app.bookings.check_out is 'Move-out date (after check_in).';
comment on column app.bookings.move_in_confirmed_at is 'When the move-in was confirmed.';
comment on column app.bookings.cancelled_at is 'Set exactly when booking_status is cancelled.';

comment on table app.payments is 'Each charge on the provider''s own processor account for a booking. Amounts in cents; gross and net are computed.';
comment on column app.payments.org_id is 'The provider paid.';
comment on column app.payments.carrier_org_id is 'The carrier whose placement the charge is for; it reads the payment too.';
comment on column app.payments.lease_agreement_id is 'The lease agreement charged for.';
comment on column app.payments.charge_type is 'initial (first charge at placement), rent, deposit or fee.';
comment on column app.payments.status is 'succeeded, failed or refunded.';
comment on column app.payments.rent_cents is 'Rent part of the charge.';
comment on column app.payments.deposit_cents is 'Deposit part of the charge.';
comment on column app.payments.fees_cents is 'One-off fees part of the charge.';
comment on column app.payments.gross_cents is 'Computed: rent + deposit + fees.';
comment on column app.payments.platform_fee_cents is 'The service''s fee, taken from rent only.';
comment on column app.payments.processing_fee_cents is 'The card processor''s fee on the whole charge.';
comment on column app.payments.net_cents is 'Computed: gross minus platform and processing fees; what reaches the provider.';
comment on column app.payments.paid_at is 'When the charge succeeded; null exactly when it failed.';
comment on column app.payments.failure_reason is 'The processor''s reason for a failed charge.';

-- Carriers --------------------------------------------------------------------------------------

comment on table app.claims is 'Housing requests (the API''s /claims): a carrier''s request to house a displaced household, with the loss, the commercials and the household''s needs. Requests opened inside the service (opened_via = service) are invisible to the API.';
comment on column app.claims.claim_ref is 'The public reference, REQ- and six characters; unique across all tenants.';
comment on column app.claims.opened_via is 'api: opened by the carrier''s integration; service: opened by a coordinator inside the service (never shown by the API).';
comment on column app.claims.external_id is 'The caller''s external_id given at creation (returned as api_external_id); unique per organisation and environment.';
comment on column app.claims.external_reference is 'The carrier''s claim number or other reference.';
comment on column app.claims.status_primary is 'Where the request stands, from housing_needs_collected to move_out_closeout (shared/claims/status.ts).';
comment on column app.claims.loss_address is 'Address of the damaged home; never changes (another address is another request).';
comment on column app.claims.loss_city is 'City of the damaged home.';
comment on column app.claims.loss_state is 'State of the damaged home.';
comment on column app.claims.loss_zip is 'ZIP of the damaged home; its centroid is the origin when no coordinates are given.';
comment on column app.claims.loss_country is 'ISO country code of the damaged home.';
comment on column app.claims.loss_lat is 'Given latitude of the damaged home (with loss_lng, or neither).';
comment on column app.claims.loss_lng is 'Given longitude of the damaged home (with loss_lat, or neither).';
comment on column app.claims.origin_lat is 'Where matching measures distance from: loss_lat, else the loss ZIP''s centroid.';
comment on column app.claims.origin_lng is 'Where matching measures distance from: loss_lng, else the loss ZIP''s centroid.';
comment on column app.claims.policyholder_name is 'Name of the insured household''s policyholder.';
comment on column app.claims.target_move_in is 'Date the household needs to move in.';
comment on column app.claims.est_length_months is 'Estimated stay in months (1 to 36).';
comment on column app.claims.max_budget_cents is 'Highest monthly rent the carrier accepts, in cents.';
comment on column app.claims.ale_limit_cents is 'The policy''s Additional Living Expense limit, in cents.';
comment on column app.claims.rent_payer is 'Who pays rent: carrier, tpa or policyholder.';
comment on column app.claims.deposit_payer is 'Who pays the deposit: carrier, tpa or policyholder.';
comment on column app.claims.fees_payer is 'Who pays one-off fees: carrier, tpa or policyholder; null: not said.';
comment on column app.claims.search_radius_miles is 'Matching radius around the origin, in miles.';
comment on column app.claims.priority is 'standard, high or urgent.';
comment on column app.claims.household_email is 'Contact email of the household.';
comment on column app.claims.household_phone is 'Contact phone of the household.';
comment on column app.claims.adjuster_name is 'The carrier''s adjuster on the claim.';
comment on column app.claims.adjuster_email is 'The adjuster''s email.';
comment on column app.claims.adjuster_phone is 'The adjuster''s phone.';
comment on column app.claims.bedrooms is 'Bedrooms the household needs.';
comment on column app.claims.bathrooms is 'Bathrooms the household needs (halves allowed).';
comment on column app.claims.sqft is 'Living space the household needs, in square feet.';
comment on column app.claims.occupants is 'Computed: adults + children.';
comment on column app.claims.property_type is 'apartment, condo, townhouse, house, duplex or any.';
comment on column app.claims.furnishing is 'furnished, partial, unfurnished or any.';
comment on column app.claims.accessibility_needs is 'Accessibility needs of the household.';
comment on column app.claims.amenities is 'Amenities the household asks for.';
comment on column app.claims.laundry_preference is 'in_unit, on_site or no_preference.';
comment on column app.claims.parking_preference is 'garage, dedicated, street or no_preference.';
comment on column app.claims.has_pets is 'The household has pets; then number_of_pets, pet_details and pet_breeds are all set.';
comment on column app.claims.number_of_pets is 'Set exactly when has_pets.';
comment on column app.claims.pet_details is 'Set exactly when has_pets.';
comment on column app.claims.pet_breeds is 'Set exactly when has_pets.';
comment on column app.claims.coordinator_email is 'The coordinator assigned to this request alone; null: the organisation''s (see app.coordinator_of).';

comment on table app.org_coordinators is 'Each carrier''s default coordinator for its live requests: the service''s staff member who sources homes (set with `admin coordinator assign`).';
comment on column app.org_coordinators.email is 'The coordinator''s email.';
comment on column app.org_coordinators.assigned_at is 'When the coordinator was assigned.';

comment on table app.claim_documents is 'Documents filed on a request (loss report, policy, ...). The bytes live in document storage under storage_key.';
comment on column app.claim_documents.kind is 'loss_report, policy, identification, lease, invoice, correspondence, photo or other.';
comment on column app.claim_documents.filename is 'File name as uploaded.';
comment on column app.claim_documents.content_type is 'MIME type of the file.';
comment on column app.claim_documents.size_bytes is 'Size of the file.';
comment on column app.claim_documents.sha256 is 'SHA-256 (hex) of the file''s bytes.';
comment on column app.claim_documents.storage_key is 'Where the bytes are in document storage (Supabase Storage bucket or DATA_DIR/documents).';
comment on column app.claim_documents.uploaded_via is 'api: uploaded by the carrier''s integration (api_key_id set); service: filed by the service''s team.';
comment on column app.claim_documents.api_key_id is 'The key that uploaded it, for uploads through the API.';

comment on table app.sourcing_rounds is 'Each sourcing round of a request: a matching run plus a crawl request for homes around the loss ZIP.';
comment on column app.sourcing_rounds.trigger is 'opened (at creation) or source_more (POST /claims/{reference}/source-more).';
comment on column app.sourcing_rounds.coordinator_email is 'The coordinator responsible when the round ran.';
comment on column app.sourcing_rounds.matches_found is 'Homes matching found in the round.';
comment on column app.sourcing_rounds.crawl_postcode is 'ZIP the crawl searches around.';
comment on column app.sourcing_rounds.crawl_request is 'The crawl request as sent (or as it would be sent).';
comment on column app.sourcing_rounds.crawl_status is 'pending, sent, recorded (sandbox: never sent), not_configured (no SOURCING_CRAWL_URL) or failed.';
comment on column app.sourcing_rounds.crawl_detail is 'The crawler''s answer or the failure.';

comment on table app.claim_homes is 'Homes put on a request as options, and their way to a placement (lease, move-in). Extended by the placement work.';
comment on column app.claim_homes.option_status is 'Where the option stands with the carrier (sent, approved, declined, ...).';
comment on column app.claim_homes.lease_status is 'awaiting_lease, sent_for_signature, policyholder_signed or fully_signed; null: no lease started.';
comment on column app.claim_homes.move_in_date is 'Agreed move-in date.';
comment on column app.claim_homes.move_out_date is 'Agreed move-out date.';
comment on column app.claim_homes.added_at is 'When the home was put on the request.';
comment on column app.claim_homes.cancelled_at is 'When the option or placement was cancelled; null: still open.';

comment on table app.zip_centroids is 'Reference data, the same for every tenant: US ZIP code centroids (GeoNames, CC BY 4.0), where matching measures from when a request or home has no coordinates. Generated by scripts/claims/generate-zip-centroids.ts.';
comment on column app.zip_centroids.place is 'Place name of the ZIP.';
comment on column app.zip_centroids.state_code is 'Two-letter state code; null for a few military ZIPs.';
comment on column app.zip_centroids.latitude is 'Centroid latitude.';
comment on column app.zip_centroids.longitude is 'Centroid longitude.';

-- Webhooks --------------------------------------------------------------------------------------

comment on table app.webhook_endpoints is 'Integrators'' webhook endpoints (the API''s /webhooks), per organisation and environment.';
comment on column app.webhook_endpoints.url is 'HTTPS address deliveries are POSTed to.';
comment on column app.webhook_endpoints.events is 'Event types subscribed to; null: every event of the organisation''s side, including later ones.';
comment on column app.webhook_endpoints.is_active is 'Inactive endpoints receive nothing; deactivating cancels waiting deliveries.';
comment on column app.webhook_endpoints.secret is 'Signing secret (whsec_...). The API role can write but never read it: shown once when issued.';
comment on column app.webhook_endpoints.secret_rotated_at is 'When the secret was last rotated.';

comment on table app.webhook_deliveries is 'The webhook delivery queue and its history: one row per event and endpoint (plus test pings and replays), fanned out from app.events in the same transaction and sent by the dispatcher with retries.';
comment on column app.webhook_deliveries.event_id is 'The event delivered; null only for a test ping.';
comment on column app.webhook_deliveries.event is 'Event type (ping for the test ping).';
comment on column app.webhook_deliveries.replay is 'Queued by a replay (POST /events/{id}/replay), not by the event itself.';
comment on column app.webhook_deliveries.status is 'pending (waiting or being sent), succeeded, abandoned (retries used up) or cancelled (endpoint deactivated).';
comment on column app.webhook_deliveries.attempts is 'Attempts started. Attempt n that fails waits the n-th step of WEBHOOK_RETRY_SCHEDULE.';
comment on column app.webhook_deliveries.next_attempt_at is 'When the delivery is next due; while a dispatcher holds it, when its lease runs out. Null once finished.';
comment on column app.webhook_deliveries.lease_token is 'Set while a dispatcher holds the row; a result is recorded only with the token of its claim.';
comment on column app.webhook_deliveries.claimed_at is 'When the current dispatcher claimed the row.';
comment on column app.webhook_deliveries.signing_secret is 'The endpoint''s secret when queued (kept across a rotation); cleared once the delivery is finished.';
comment on column app.webhook_deliveries.history is 'One entry per attempt: attempt, at, outcome, http_status, response_body (excerpt), error, duration_ms.';
comment on column app.webhook_deliveries.completed_at is 'When the delivery finished (succeeded, abandoned or cancelled).';

-- Functions -------------------------------------------------------------------------------------

comment on function app.current_org() is 'The organisation of the current transaction (setting app.org_id); null: sees nothing.';
comment on function app.current_env() is 'The environment of the current transaction (setting app.env): live or sandbox.';
comment on function app.enable_tenant_isolation(regclass) is 'Turns on row-level security for a tenant table: svc_api sees and writes only the transaction''s organisation and environment.';
comment on function app.default_rate_limit(text) is 'Default per-minute rate limit of a key in an environment (600 live, 120 sandbox); a key''s rate_limit_per_minute overrides it.';
comment on function app.authenticate(text, text) is 'Per request, in one statement: finds the live organisation key by hash and counts the request in its rate-limit window (or the address''s window when the key is unknown).';
comment on function app.record_event(text, jsonb, uuid, text, boolean) is 'Records an event in the outbox (app.events), for the current tenant or an explicit counterpart; fanned out to webhooks by trigger.';
comment on function app.listing_missing_fields(app.properties) is 'The listing-completeness rule: API field names a home still lacks, in the specification''s order.';
comment on function app.properties_readiness() is 'Trigger: keeps a home''s missing_fields, listed and verified from the row itself.';
comment on function app.availability_via(app.properties) is 'How a home''s availability is read: complete_profile, calendar_synced, manual_blocks, available_dates.';
comment on function app.verified_via(app.properties) is 'The strongest way a verified home''s availability is read; null when not verified.';
comment on function app.range_is_free(uuid, text, date, date) is 'Whether no block touches the dates in an environment; locks the home until the end of the transaction so a hold can rely on the answer.';
comment on function app.take_hold(uuid, text, date, date, uuid, text) is 'Takes a service hold for a lease when the dates are free; returns the block id, or null when taken.';
comment on function app.release_holds(uuid, text) is 'Releases a lease''s service holds (cancellation); returns how many were removed.';
comment on function app.payout_status(uuid, text) is 'A provider''s payout account in an environment, or the environment''s starting state when none is recorded.';
comment on function app.can_take_charges(uuid, text) is 'Whether a provider''s payout account takes charges in an environment (needed to place a family in its homes).';
comment on function app.own_home_labels(uuid[]) is 'Name and reference of the caller''s own homes in any environment (a sandbox booking of a real home).';
comment on function app.claims_touch() is 'Trigger: sets a request''s updated_at on every change.';
comment on function app.coordinator_of(app.claims) is 'Who sources a request: its own coordinator, else the organisation''s; sandbox requests have the sandbox coordinator.';
comment on function app.properties_locate() is 'Trigger: keeps a home''s geo_point from its coordinates, else its ZIP centroid.';
comment on function app.match_candidates(uuid, integer) is 'The homes a request of the calling tenant can be offered, nearest first: verified, available, within the radius, from a provider that takes charges.';
comment on function app.fan_out_events() is 'Trigger: queues every recorded event to the subscribed active endpoints of its organisation and environment.';
comment on function app.cancel_waiting_deliveries() is 'Trigger: cancels the waiting deliveries of an endpoint that is deactivated.';
comment on function app.queue_replay(uuid) is 'Queues an event of the current tenant again to its subscribed active endpoints; returns subscribed and queued counts.';
comment on function app.queue_ping(uuid) is 'Queues a test ping to one endpoint of the current tenant; returns the delivery id.';
comment on function app.purge_expired_events(integer) is 'Retention: deletes events (and their deliveries) and pings older than 90 days, in batches.';
comment on function app.invoke_webhook_dispatcher() is 'On Supabase, called by pg_cron: calls the internal webhook-dispatcher function through pg_net.';
comment on function app.schedule_webhook_jobs() is 'Schedules dispatch and retention with pg_cron where pg_cron and pg_net exist (Supabase); false elsewhere.';
