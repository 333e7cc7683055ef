import type { ErrorCode } from './errors.ts';

// The reference entry of every error code: what it means and what to do about it. Every error body's
// `doc_url` points at the code's entry on the reference page the docs function serves
// (GET /functions/v1/docs/errors#error-<code>), rendered from this table; docs/errors.md is the same
// table for readers of the repository, and a test holds both to the codes the service answers.
// A Record over ErrorCode: a code added to the table in errors.ts without its entry here fails the
// type check.

export const errorMeanings: Record<ErrorCode, string> = {
  missing_key: 'No API key was sent. Send it as `Authorization: Bearer <key>` or `x-api-key: <key>`.',
  invalid_key: 'The key is unknown, revoked, or tied to one person (staff keys are refused). Use an active organisation key.',
  forbidden: 'The key lacks the scope this call needs; the message names the scope. Use a key that holds it.',
  sandbox_only: 'A sandbox helper (or event simulation) was called with a live key. Use a sandbox key (`svc_sk_`).',
  invalid_field: 'A field is missing, malformed or not known; `field` names it as a dot path. An unknown field names the nearest known one when one is close. Fix the field and send again.',
  stay_too_short: 'The stay is shorter than the 30-day minimum (`field: move_out`). Choose a later move-out.',
  invalid_json: 'The body could not be read: not JSON, not sent as `application/json`, not UTF-8, a key named twice in one object (`field` names it), or a malformed request. Nothing was done.',
  could_not_create: 'The housing request could not be created from what was sent; nothing was created. Check the values and retry, or quote the X-Request-Id.',
  could_not_place: 'The home cannot be put on the request: the provider cannot take charges, the application was declined, no `household_email` to send to, or another stay holds its nights (`error.conflicts`).',
  could_not_set_dates: 'The dates cannot be set: the home is no longer offered, its provider cannot take charges, the application is not approved, nobody can receive the lease, or the stay has ended.',
  could_not_read: 'A read was refused. Quote the X-Request-Id if it persists.',
  idempotency_key_too_long: 'The `Idempotency-Key` is over 255 characters. Send a shorter one.',
  not_found: 'No such object for this organisation in this environment, or no endpoint at the path. Live and sandbox keys see separate data: an object made with a key of the other environment is not visible, and the message says so without saying whether it exists.',
  not_on_request: 'The home is not on the request (put it there with `POST /claims/{reference}/options`), or the placement was cancelled. 409 on dates, proposals, signer and the sandbox helpers; 404 on cancel-booking and refund-request.',
  method_not_allowed: 'The path exists but not with this method; `Allow` lists the methods it takes.',
  budget_not_approved: 'The budget review is not approved. Approve it (`POST .../budget` with `approved: true`) or send `approve_budget: true`.',
  dates_unavailable: 'Something already holds part of the dates; `error.conflicts` lists the ranges and why. Choose other dates.',
  already_signed: 'The lease is fully signed; its dates or signer can no longer change this way. Cancel the placement, or extend or shorten the booked stay.',
  already_paid: 'Money has settled on the placement; `error.payment` names the payment. Cancel with `force: true` and ask the landlord for a refund.',
  nothing_to_refund: 'Nothing is owed back on the payment. To return money anyway, ask with `goodwill: true`; a landlord declines a request that has nothing left to return.',
  refund_pending: 'A refund request on this home is already open. Wait for the landlord to answer it.',
  no_coordinator: 'No coordinator is assigned to source homes for this request yet; the service assigns one (sandbox requests always have one).',
  idempotency_key_reused: 'The `Idempotency-Key` was used before with another method, path or body. Use a new key for a new request.',
  request_in_progress: 'The first request with this `Idempotency-Key` is still running. Retry after a short wait.',
  idempotent_answer_lost: 'The first request with this `Idempotency-Key` made its change, but its answer was not kept. The change is not made again; read the resource to see it.',
  no_endpoint: 'No active webhook endpoint in this environment subscribes to the event. Create or reactivate one first.',
  not_yours_to_release: 'The availability block is not the provider\'s to release: a hold for a lease or booking (cancel the placement instead), or read from an imported calendar (change that calendar).',
  could_not_replay: 'The event or the deliveries cannot be sent again now: a replay is already waiting, or the endpoint is inactive (reactivate it first).',
  no_such_adjuster: 'The address is not an adjuster on the service. Check the adjuster address.',
  no_billing_account: 'The live organisation is not linked to a billing account; the service links it on request. Sandbox needs none.',
  not_yours: "The document was filed by the service's team, not through this integration: it can be listed, not downloaded.",
  unknown_event: 'An event type named is not one the service sends to this side; the message lists the known ones.',
  unsupported_type: 'The file is not a document type the service accepts (its content is checked, not only its name).',
  file_too_large: 'The body is over 10 MB (a multipart upload may add 64 KB of framing); nothing past the limit was read.',
  option_not_open: 'The home is not open to the household this way: it was placed rather than sent, cancelled, or has no link issued.',
  lease_not_signable: 'The lease cannot take this signature yet: it is not issued, or not at the step this signature follows. Retry once the earlier step is done.',
  proposal_pending: 'The household proposed other dates; the placement waits for the carrier to answer the proposal.',
  no_proposal: 'The household has not proposed other dates for this home, so there is nothing to approve.',
  no_refund_request: 'No refund request is waiting for the landlord on this home.',
  invalid_signature: 'A callback or notification whose signature does not verify. Nothing was done.',
  not_configured: 'The deployment has not set up the party this needs (email, e-signature or payments); the message names the settings. Nothing was sent; retry once they are set.',
  lease_not_signed: 'Payment opens once the lease is signed by both parties.',
  charges_disabled: "The landlord's payment account cannot take charges (not connected, or setup unfinished), or the home is no longer offered. Nothing can be paid until it can.",
  nothing_due: 'Nothing is due now for this payer; it was paid meanwhile, or no period is due yet.',
  amount_changed: 'What is due changed since the page was shown. Review the new amount and pay again.',
  not_booked: 'The stay is not booked yet (the lease signed by both and the first payment cleared): move-in and extensions wait for it.',
  already_moved_in: 'The move-in was confirmed before.',
  move_in_not_yet: "The move-in is confirmed on or after the booking's move-in date (`error.move_in_date`).",
  refund_not_found: 'No such refund for this placement.',
  extension_pending: 'An extension of the stay is open; it is paid (or withdrawn) first, before another change of the stay over its nights.',
  already_answered: 'The landlord approved or declined this application before.',
  rate_limited: 'Over the key\'s per-minute limit; nothing was done. Retry after `Retry-After` seconds.',
  server_error: 'A fault on the service\'s side; nothing about it leaks. Retry with backoff and quote the X-Request-Id if it persists.',
};

/** The statuses a code is answered with (defined with the table of codes). */
export { statusesOf } from './errors.ts';
