import { single } from '../../../shared/http/envelope.ts';
import { pageQuery, pageSizes } from '../../../shared/http/paging.ts';
import { createRoutes, dataOf, jsonBody, jsonResponse, pageOf } from '../../../shared/http/routes.ts';
import { defineRoute } from '../errors.ts';
import { answerRefundRequest, listRefundRequests } from '../../../shared/placements/commands/refunds.ts';
import { ProviderRefundRequest, RefundDecision, RefundRequestParams } from '../schemas.ts';

// The landlord's side of refunds: the requests carriers made on the provider's homes, and the
// answer. The same command answers the sandbox landlord helper.

const tags = ['Bookings'];

export const refundRoutes = createRoutes()
  .openapi(
    defineRoute({
      method: 'get',
      path: '/refund-requests',
      operationId: 'listRefundRequests',
      tags,
      summary: 'Refund requests on your homes',
      description: 'The refund requests carriers made on payments for your homes, newest first, with their status; keyset-paged like every list.',
      scope: 'bookings:read',
      request: { query: pageQuery(pageSizes.refundRequests) },
      responses: { 200: jsonResponse(pageOf(ProviderRefundRequest), 'One page of refund requests.') },
      errors: {
        422: {
          invalid_field: 'a bad limit or cursor.',
        },
      },
    }),
    async (c) => c.json(await listRefundRequests(c.get('caller'), c.req.valid('query')), 200),
  )
  .openapi(
    defineRoute({
      method: 'post',
      path: '/refund-requests/{id}',
      operationId: 'decideRefundRequest',
      tags,
      summary: 'Approve or decline a refund request',
      description:
        'approve: what the request asked, up to what is owed back (or held) as the stay stands now (or all of it, asked with goodwill), is ' +
        'refunded on your payment-processor account, with the platform fee on the rent returned (status approved, then refunded within ' +
        'seconds; the carrier gets payment.refunded with outcome approved and the amount returned). When the stay changed so that nothing is ' +
        'owed back any more, approve answers 409 nothing_to_refund: decline it. decline: the payment stays; the carrier gets payment.refunded with ' +
        'outcome declined and may ask again.',
      scope: 'properties:write',
      request: { params: RefundRequestParams, body: jsonBody(RefundDecision) },
      responses: { 200: jsonResponse(dataOf(ProviderRefundRequest), 'The refund request after the answer.') },
      errors: {
        404: {
          not_found: 'no such refund request on your homes in this environment.',
        },
        409: {
          no_refund_request: 'the request was already answered.',
          nothing_to_refund: 'approve: the stay changed since the request so that nothing is owed back (or held) to return; decline it.',
        },
        422: {
          invalid_field: 'decision is not approve or decline.',
        },
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      const { decision } = c.req.valid('json');
      return c.json(single(await answerRefundRequest(c.get('caller'), id, decision === 'approve')), 200);
    },
  );
