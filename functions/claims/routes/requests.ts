import { batchAnswer, batchResponses, parseItems, refusedItem, succeededItem } from '../../../shared/http/batch.ts';
import { createRoutes, dataOf, jsonBody, jsonResponse, pageOf } from '../../../shared/http/routes.ts';
import { defineRoute } from '../errors.ts';
import { single } from '../../../shared/http/envelope.ts';
import { rowPage } from '../../../shared/http/paging.ts';
import { toClaim, toCreated, toListItem } from '../repository.ts';
import { requestOf, requestsPage } from '../read.ts';
import { amendClaim } from '../amend.ts';
import { createClaims } from '../create.ts';
import {
  AmendClaim, BatchBody, BatchResult, Claim, ClaimCreated, ClaimListItem, CreateClaim, ListQuery, PlacementInProgress, ReferenceParam,
} from '../schemas.ts';

// Housing requests: create (one or a batch), list, read, amend.

const tags = ['Housing requests'];

export const requestRoutes = createRoutes()
  .openapi(
    defineRoute({
      method: 'post',
      path: '/',
      operationId: 'createHousingRequest',
      tags,
      summary: 'Open a housing request',
      description:
        'Creates the request and answers with status_primary housing_needs_collected. Sourcing starts at once, right after the ' +
        'request is committed, without this call waiting for it: matching against verified homes (a request with matches moves to ' +
        'housing_options_found, with its request.status_changed, usually well within a second) and a crawl in the loss postcode. ' +
        'A repeated external_id answers 200 with the existing request and idempotent: true; nothing is created or changed.',
      scope: 'claims:write',
      request: { body: jsonBody(CreateClaim) },
      responses: {
        201: jsonResponse(dataOf(ClaimCreated), 'The request was created.'),
        200: jsonResponse(dataOf(ClaimCreated), 'The external_id had already created this request (idempotent: true).'),
      },
      errors: {
        400: {
          invalid_json: 'the body is not JSON',
          could_not_create: 'the request could not be written.',
        },
        422: {
          invalid_field: 'a field is missing or wrong (field names it), including a US ZIP code the service does not know without loss_lat/loss_lng.',
        },
      },
    }),
    async (c) => {
      const [outcome] = await createClaims(c.get('caller'), [c.req.valid('json')]);
      if (!outcome.ok) throw outcome.error;
      return c.json(single(toCreated(outcome.row, outcome.idempotent)), outcome.idempotent ? 200 : 201);
    },
  )
  .openapi(
    defineRoute({
      method: 'post',
      path: '/batch',
      operationId: 'createHousingRequestBatch',
      tags,
      summary: 'Open up to 50 housing requests in one call',
      description:
        'Each item is validated and created on its own, exactly as POST /claims would (external_id idempotency per item; new ' +
        'requests answer housing_needs_collected and are sourced right after the commit): one bad item never affects the others. ' +
        'The answer is the batch result at the top level, as for every batch route: ' +
        '`created`, `failed` and `results` in the order sent, each with `index`, `external_id`, `ok` and `data` or `error`. ' +
        'Status 201 when every item succeeded, 207 when some failed, 422 when all failed. ' +
        'An item whose external_id already created a request is ok, with idempotent: true.',
      scope: 'claims:write',
      request: { body: jsonBody(BatchBody) },
      responses: batchResponses(BatchResult, 'requests'),
    }),
    async (c) => {
      const { requests } = c.req.valid('json');
      const outcomes = await createClaims(c.get('caller'), parseItems(CreateClaim, requests), { bulk: true });
      const results = outcomes.map((outcome, index) =>
        outcome.ok
          ? succeededItem(index, outcome.row.external_id, { data: toCreated(outcome.row, outcome.idempotent) })
          : refusedItem(index, requests[index], outcome.error, {}));
      const { body, status } = batchAnswer({ created: outcomes.filter((o) => o.ok).length }, results, {});
      return c.json(body, status);
    },
  )
  .openapi(
    defineRoute({
      method: 'get',
      path: '/',
      operationId: 'listHousingRequests',
      tags,
      summary: "List the organisation's housing requests, newest first",
      description:
        'Keyset-paged: pass next_cursor back unchanged as cursor for the next page. external_id finds the request opened under your own ' +
        'reference (GET /claims/{reference} takes the claim_ref or id). An unknown status, a timestamp without ' +
        'Z or an offset, or a cursor this endpoint did not make is 422 invalid_field naming the parameter.',
      scope: 'claims:read',
      request: { query: ListQuery },
      responses: { 200: jsonResponse(pageOf(ClaimListItem), 'A page of requests; next_cursor is null on the last page.') },
    }),
    async (c) => {
      const { limit, status, updated_since: updatedSince, external_id: externalId, cursor } = c.req.valid('query');
      const rows = await requestsPage(c.get('caller'), { limit, statuses: status?.split(',').map((s) => s.trim()), updatedSince, externalId, cursor });
      return c.json(rowPage(rows, limit, toListItem), 200);
    },
  )
  .openapi(
    defineRoute({
      method: 'get',
      path: '/{reference}',
      operationId: 'getHousingRequest',
      tags,
      summary: 'Read a housing request in full',
      description: '{reference} is the claim_ref (REQ-XXXXXX) or the id.',
      scope: 'claims:read',
      request: { params: ReferenceParam },
      responses: { 200: jsonResponse(dataOf(Claim), 'The request: address, dates, household, budget and payers.') },
      errors: {
        404: {
          not_found: 'no such request for this organisation in this environment.',
        },
      },
    }),
    async (c) => {
      return c.json(single(toClaim(await requestOf(c.get('caller'), c.req.valid('param').reference))), 200);
    },
  )
  .openapi(
    defineRoute({
      method: 'patch',
      path: '/{reference}',
      operationId: 'amendHousingRequest',
      tags,
      summary: 'Amend a housing request (commercials and household needs)',
      description:
        'Send any changeable field; null clears an optional one. occupants follows adults + children and cannot be sent. has_pets: true needs ' +
        'number_of_pets, pet_details and pet_breeds in the same change; has_pets: false clears them. The loss address, ' +
        "policyholder_name and external_id are refused. Needs apply to the next matching at once. While a placement is in flight " +
        'the response also carries placement_in_progress: its homes keep their lease and calendar holds.',
      scope: 'claims:write',
      request: { params: ReferenceParam, body: jsonBody(AmendClaim) },
      responses: {
        200: jsonResponse(dataOf(Claim).extend({ placement_in_progress: PlacementInProgress.optional() }), 'The amended request.'),
      },
      errors: {
        404: {
          not_found: 'no such request for this organisation in this environment.',
        },
      },
    }),
    async (c) => {
      const { row, placementInProgress } = await amendClaim(c.get('caller'), c.req.valid('param').reference, c.req.valid('json'));
      return c.json({ data: toClaim(row), ...(placementInProgress ? { placement_in_progress: placementInProgress } : {}) }, 200);
    },
  );
