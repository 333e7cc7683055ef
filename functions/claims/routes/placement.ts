import { createRoutes, dataOf, jsonBody, jsonResponse } from '../../../shared/http/routes.ts';
import { defineRoute } from '../errors.ts';
import { single } from '../../../shared/http/envelope.ts';
import { decideBudget, readBudget } from '../../../shared/placements/commands/budget.ts';
import { approveProposal, changeSigner, setDates } from '../../../shared/placements/commands/dates.ts';
import { putOption } from '../../../shared/placements/commands/options.ts';
import { resendHouseholdLink } from '../../../shared/placements/commands/household-link.ts';
import { readPlacement } from '../../../shared/placements/commands/read.ts';
import {
  BudgetDecision, BudgetParams, BudgetReview, DatesInput, HouseholdLinkSent, LeaseCreated, OptionInput, OptionResult, Placement, PropertyRef, SignerChanged,
  SignerInput,
} from '../../../shared/placements/schemas.ts';
import { ReferenceParam } from '../schemas.ts';

// Placement: the budget review, putting a home on the request (send or place), dates, the household's
// date proposal, the signer, and the placement read. Handlers are thin: each calls its command.

const tags = ['Placement'];

export const placementRoutes = createRoutes()
  .openapi(
    defineRoute({
      method: 'get',
      path: '/{reference}/options/{propertyId}/budget',
      operationId: 'getBudgetReview',
      tags,
      summary: 'The budget review of a home on a request',
      description:
        'Every figure of the stay, priced by the same function the checkout charges with: the rent tier by stay length, pet rent, ' +
        'pet fee and pet deposit when the request has pets, utilities unless included, one-off fees, deposits, the service fee ' +
        '(a share of rent only, deducted from the landlord’s payout), totals, the comparison with max_budget and ale_limit, and the approval. ' +
        'Before both signatures it prices the home’s rates as they stand (basis live_rates); once the lease is signed by both, the terms ' +
        'that contract version froze, over the stay it bills (basis signed_terms, lease_id), so a later change of the home’s rates does ' +
        'not show and the review stays what the checkout charges. ' +
        'The example of the specification is shown without a data wrapper; this API wraps it in data like every resource.',
      scope: 'options:read',
      request: { params: BudgetParams },
      responses: { 200: jsonResponse(dataOf(BudgetReview), 'The budget review.') },
      errors: {
        404: {
          not_found: 'no such request for this organisation in this environment; or no such home for it (another environment, not verified, unavailable, or a test home on a live request).',
        },
      },
    }),
    async (c) => {
      const { reference, propertyId } = c.req.valid('param');
      return c.json(single(await readBudget(c.get('caller'), reference, propertyId)), 200);
    },
  )
  .openapi(
    defineRoute({
      method: 'post',
      path: '/{reference}/options/{propertyId}/budget',
      operationId: 'approveBudget',
      tags,
      summary: 'Approve (or withdraw approval of) a home’s budget',
      description:
        'approved: true records the carrier’s approval of the figures; false withdraws it (POST options then answers budget_not_approved ' +
        'unless approve_budget is sent). Returns the budget review with the approval as recorded. Safe to retry.',
      scope: 'options:write',
      request: { params: BudgetParams, body: jsonBody(BudgetDecision) },
      responses: { 200: jsonResponse(dataOf(BudgetReview), 'The figures approved (or no longer approved).') },
      errors: {
        404: {
          not_found: 'no such request for this organisation in this environment; or no such home for it.',
        },
        422: {
          invalid_field: 'approved missing or not a boolean, or an unknown field.',
        },
      },
    }),
    async (c) => {
      const { reference, propertyId } = c.req.valid('param');
      return c.json(single(await decideBudget(c.get('caller'), reference, propertyId, c.req.valid('json').approved)), 200);
    },
  )
  .openapi(
    defineRoute({
      method: 'post',
      path: '/{reference}/options',
      operationId: 'addHomeOption',
      tags,
      summary: 'Put a home on the request: send it to the household, or place it',
      description:
        'send: the household is emailed a signed link to its own page for the home (the request needs household_email), where it saves, ' +
        'applies, proposes dates or declines; the landlord approves the application (POST /properties/applications/{id}); ' +
        'the application; then the caller sets dates. place: option_status approved, application_status approved_to_lease; the landlord is told; ' +
        'the lease goes to the named signer (signer_name, signer_email) or to the caller’s own team, once dates are set; the household is not contacted. ' +
        'With send, the lease goes to the household (household_email), the adjuster copied. ' +
        'The budget must be approved first (POST budget with approved: true), or in the same call with approve_budget: true; otherwise ' +
        '409 budget_not_approved. A home whose nights another request\'s stay holds (its dates set, signed or booked) over the stay this request ' +
        'wants (target_move_in for est_length_months, [target_move_in, target_move_in + months), from today on) is refused, send as place, with ' +
        '400 could_not_place and error.conflicts[] (start_date, end_date: first and last night held; reason), as dates_unavailable\'s, naming no ' +
        'other request; a stay that ends the night before target_move_in is no conflict, and a provider\'s own blocks are judged by POST dates. ' +
        'Safe to retry: the same row is rewritten, and a home already on the request as the call puts it answers as before.',
      scope: 'options:write',
      request: { params: ReferenceParam, body: jsonBody(OptionInput) },
      responses: { 200: jsonResponse(dataOf(OptionResult), 'The home on the request.') },
      errors: {
        400: {
          could_not_place:
            'its provider cannot take charges (charges_enabled false), the household declined it, the request has no household_email (send), its state does not allow the action, ' +
            'or another request\'s stay holds nights of the stay this request wants (error.conflicts[] with start_date, end_date, reason).',
        },
        404: {
          not_found: 'no such request for this organisation in this environment; or no such home for it.',
        },
        409: {
          budget_not_approved: 'approve the budget first or send approve_budget: true',
          no_billing_account: 'a live organisation not linked to a billing account.',
        },
        422: {
          invalid_field: 'property_id missing or not a uuid, action not send or place, signer fields with send, signer_email without signer_name.',
        },
      },
    }),
    async (c) => c.json(single(await putOption(c.get('caller'), c.req.valid('param').reference, c.req.valid('json'))), 200),
  )
  .openapi(
    defineRoute({
      method: 'post',
      path: '/{reference}/options/{propertyId}/household-link',
      operationId: 'resendHouseholdLink',
      tags,
      summary: 'Send the household its link to the home again',
      description:
        'Beyond the specification. A home sent to the household (POST options, action send) comes with an email carrying a signed link to ' +
        'the household\'s own page for it (valid 14 days). This sends a new one to the request\'s household_email; every earlier link stops ' +
        'working. Use it when the link expired, or after changing household_email. On a deployment with no email configured nothing is sent and ' +
        'nothing changes: 503 not_configured names the missing settings (an operator\'s to set), and the earlier link keeps working. A send that ' +
        'fails for good after it was queued is recorded on the placement\'s timeline and announced as household_link.undelivered.',
      scope: 'options:write',
      request: { params: BudgetParams },
      responses: { 202: jsonResponse(dataOf(HouseholdLinkSent), 'The link goes out within seconds.') },
      errors: {
        400: { could_not_place: 'the request has no household_email.' },
        404: { not_found: 'no such request for this organisation in this environment' },
        409: {
          not_on_request: 'the home is not on the request',
          option_not_open: 'the home was placed, not sent to the household, or was cancelled.',
        },
        503: { not_configured: 'email is not configured on this deployment (the message names the settings): nothing was sent.' },
      },
    }),
    async (c) => {
      const { reference, propertyId } = c.req.valid('param');
      return c.json(single(await resendHouseholdLink(c.get('caller'), reference, propertyId)), 202);
    },
  )
  .openapi(
    defineRoute({
      method: 'post',
      path: '/{reference}/dates',
      operationId: 'setDates',
      tags,
      summary: 'Set (or change) the dates: reserves the calendar and issues the lease',
      description:
        'The calendar is held for the whole range (service hold; two calls racing for overlapping dates of one home cannot both win) and the lease ' +
        'goes out for signature within seconds when the home has the standard template (status sent_for_signature, lease.sent). Sending new dates ' +
        're-dates: the unsigned contract is withdrawn and kept as superseded, the old hold is released. The same dates again change nothing. ' +
        'Rules: at least 30 days; the whole range free; move_in not in the past; move_out after move_in; dates YYYY-MM-DD. ' +
        'The home must be approved to lease (placed, or the application approved by the landlord). ' +
        'Once moved in, the same move_in with an earlier move_out shortens the stay; its answer is the signed lease as GET placement shows it: ' +
        'move_out_date the signed move-out, shortened_move_out_date the stay\'s new end.',
      scope: 'options:write',
      request: { params: ReferenceParam, body: jsonBody(DatesInput) },
      responses: { 200: jsonResponse(dataOf(LeaseCreated), 'The contract version (status awaiting_lease, or the live one on a retry).') },
      errors: {
        400: {
          could_not_set_dates: 'the household declined the home, the application is not approved, the home is no longer offered or its provider cannot take charges, or nobody to send the lease to.',
        },
        404: {
          not_found: 'no such request for this organisation in this environment',
        },
        409: {
          not_on_request: 'the home was not put on the request with POST options',
          dates_unavailable: 'something holds part of the range (error.conflicts[] has start_date, end_date, reason)',
          already_signed: 'the lease is fully signed; cancel instead.',
          extension_pending: '(field move_out) a shortening to a day inside the nights of an extension not in effect yet (unsigned or unpaid): pay it first, then shorten.',
        },
        422: {
          stay_too_short: '(field move_out) under 30 days',
          invalid_field: 'a date not YYYY-MM-DD, move_out on or before move_in (field move_out), move_in in the past or before the home\'s available_from (field move_in).',
        },
      },
    }),
    async (c) => c.json(single(await setDates(c.get('caller'), c.req.valid('param').reference, c.req.valid('json'))), 200),
  )
  .openapi(
    defineRoute({
      method: 'post',
      path: '/{reference}/dates/approve-proposal',
      operationId: 'approveDatesProposal',
      tags,
      summary: 'Accept the dates the household proposed',
      description: 'The calendar hold moves to the proposed dates, the unsigned contract is withdrawn (kept as superseded) and a new one goes out.',
      scope: 'options:write',
      request: { params: ReferenceParam, body: jsonBody(PropertyRef) },
      responses: { 200: jsonResponse(dataOf(LeaseCreated), 'The new contract version.') },
      errors: {
        400: {
          could_not_set_dates: 'as for POST dates.',
        },
        404: {
          not_found: 'no such request for this organisation in this environment',
        },
        409: {
          not_on_request: 'the home was not put on the request with POST options',
          no_proposal: 'the household proposed no dates',
          dates_unavailable: 'the proposed range is held',
          already_signed: 'the lease is fully signed; cancel instead.',
        },
        422: {
          invalid_field: 'property_id missing or not a uuid; stay_too_short or invalid_field when the proposed dates no longer fit the rules (move_in now past).',
        },
      },
    }),
    async (c) => c.json(single(await approveProposal(c.get('caller'), c.req.valid('param').reference, c.req.valid('json').property_id)), 200),
  )
  .openapi(
    defineRoute({
      method: 'post',
      path: '/{reference}/signer',
      operationId: 'changeSigner',
      tags,
      summary: 'Change who signs the lease',
      description:
        'With signer_name and signer_email the lease goes to that person; without signer_email it returns to the default signer (send: the household; place: the adjuster or the caller’s own team). ' +
        'When a contract exists it is withdrawn (kept as superseded) and a new one is issued with the same dates, so one live version exists.',
      scope: 'options:write',
      request: { params: ReferenceParam, body: jsonBody(SignerInput) },
      responses: {
        200: jsonResponse(
          dataOf(SignerChanged),
          'The signer and the new contract version.',
        ),
      },
      errors: {
        400: {
          could_not_set_dates: 'the home is no longer offered, or nobody to send the lease to.',
        },
        404: {
          not_found: 'no such request for this organisation in this environment',
        },
        409: {
          not_on_request: 'the home was not put on the request with POST options',
          already_signed: 'the lease is fully signed; cancel instead.',
        },
        422: {
          invalid_field: 'property_id missing, signer_email not an email, signer_email without signer_name.',
        },
      },
    }),
    async (c) => c.json(single(await changeSigner(c.get('caller'), c.req.valid('param').reference, c.req.valid('json'))), 200),
  )
  .openapi(
    defineRoute({
      method: 'get',
      path: '/{reference}/placement',
      operationId: 'getPlacement',
      tags,
      summary: 'The placement: every home on the request and where each stands',
      description:
        'Each home: its offer (option_status, application_status), the household’s answers, the signer, the live lease with its timestamps and the ' +
        'superseded versions (lease_history), and (part 2) booking and payments. It issues the pay links: pay_in_app_url, the carrier\'s ' +
        '(every payer\'s share shown, the carrier\'s own taken), and pay_links, one per payer the request names, each a signed link naming its ' +
        'payer that shows and takes that payer\'s share only (a form for another payer\'s share is refused with 403 and records nothing). ' +
        'Forward each payer its own link; read the placement again for fresh ones (they expire after an hour).',
      scope: 'placements:read',
      request: { params: ReferenceParam },
      responses: { 200: jsonResponse(dataOf(Placement), 'The placement.') },
      errors: {
        404: {
          not_found: 'no such request for this organisation in this environment',
        },
      },
    }),
    async (c) => c.json(single(await readPlacement(c.get('caller'), c.req.valid('param').reference)), 200),
  );
