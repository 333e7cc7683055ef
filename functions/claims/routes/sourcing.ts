import { createRoutes, dataOf, jsonResponse, listOf } from '../../../shared/http/routes.ts';
import { defineRoute } from '../errors.ts';
import { list, single } from '../../../shared/http/envelope.ts';
import { matchesNow, sourceMore } from '../../../shared/claims/sourcing.ts';
import { Match, MatchQuery, ReferenceParam, SourcingRound } from '../schemas.ts';

// Matching read and sourcing rounds.

const tags = ['Housing requests'];
const notFound = { 404: { not_found: 'no such request for this organisation in this environment.' } };

export const sourcingRoutes = createRoutes()
  .openapi(
    defineRoute({
      method: 'get',
      path: '/{reference}/matches',
      operationId: 'listMatchingHomes',
      tags,
      summary: 'Homes matching the request now, best first',
      description:
        "Verified, listed homes not marked unavailable, within the request's search radius of the loss (its loss_lat/loss_lng, " +
        "else its ZIP's centroid), available and free on the target move-in, whose provider can take charges; live requests see " +
        'real homes only, sandbox requests real and test homes. The nearest 200 such homes are ranked by score (see score_parts). ' +
        'Reflects the current household needs and radius. When a request at housing_needs_collected first has matches it moves to housing_options_found. ' +
        'Homes listed here can be put on the request with POST /claims/{reference}/options.',
      scope: 'options:read',
      request: { params: ReferenceParam, query: MatchQuery },
      responses: { 200: jsonResponse(listOf(Match), 'Matches, best first.') },
      errors: notFound,
    }),
    async (c) => c.json(list(await matchesNow(c.get('caller'), c.req.valid('param').reference, c.req.valid('query').limit)), 200),
  )
  .openapi(
    defineRoute({
      method: 'post',
      path: '/{reference}/source-more',
      operationId: 'sourceMoreHomes',
      tags,
      summary: 'Ask for more homes: a new sourcing round',
      description:
        "Records a sourcing round: matching runs again and a crawl for homes in the loss postcode is requested from the service's " +
        'crawler (sandbox: recorded, nobody contacted). Needs a coordinator assigned to the request (sandbox requests always have one). ' +
        'Each call records a new round: send an Idempotency-Key to make retries safe. No body.',
      scope: 'claims:write',
      request: { params: ReferenceParam },
      responses: { 202: jsonResponse(dataOf(SourcingRound), 'The round is recorded and the crawl requested.') },
      errors: {
        ...notFound,
        409: {
          no_coordinator: 'nobody at the service is assigned to source for this request yet.',
        },
      },
    }),
    async (c) => c.json(single(await sourceMore(c.get('caller'), c.req.valid('param').reference)), 202),
  );
