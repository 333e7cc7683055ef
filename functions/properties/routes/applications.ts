import { single } from '../../../shared/http/envelope.ts';
import { createRoutes, dataOf, jsonBody, jsonResponse, pageOf } from '../../../shared/http/routes.ts';
import { defineRoute } from '../errors.ts';
import { answerApplication, listApplications } from '../../../shared/placements/commands/applications.ts';
import { ApplicationDecision, ApplicationParams, ApplicationQuery, ProviderApplication } from '../schemas.ts';

// The landlord's side of the send flow: the applications households made for the provider's homes,
// and the answer. The same command answers the sandbox landlord helper.

const tags = ['Bookings'];

export const applicationRoutes = createRoutes()
  .openapi(
    defineRoute({
      method: 'get',
      path: '/applications',
      operationId: 'listApplications',
      tags,
      summary: 'Applications for your homes',
      description:
        'Beyond the specification. The applications households made for your homes (from a carrier\'s POST options with action send), ' +
        'newest first, keyset-paged like every list; status=pending lists those waiting for your answer. Each new one is announced with ' +
        'application.received.',
      scope: 'bookings:read',
      request: { query: ApplicationQuery },
      responses: { 200: jsonResponse(pageOf(ProviderApplication), 'One page of applications.') },
      errors: { 422: { invalid_field: 'a bad limit, cursor or status.' } },
    }),
    async (c) => c.json(await listApplications(c.get('caller'), c.req.valid('query')), 200),
  )
  .openapi(
    defineRoute({
      method: 'post',
      path: '/applications/{id}',
      operationId: 'decideApplication',
      tags,
      summary: 'Approve or decline an application',
      description:
        'Beyond the specification. approve: the home is approved to lease for that request, and the carrier sets the dates (the lease then ' +
        'comes to you to countersign). decline with a reason: the application is turned down (the carrier sees application_status declined ' +
        'and the reason, and its timeline an application.declined entry); the request moves back to what its other homes support ' +
        '(request.status_changed). An application is answered once.',
      scope: 'properties:write',
      request: { params: ApplicationParams, body: jsonBody(ApplicationDecision) },
      responses: { 200: jsonResponse(dataOf(ProviderApplication), 'The application after the answer.') },
      errors: {
        404: { not_found: 'no such application on your homes in this environment.' },
        409: {
          already_answered: 'you approved or declined it before',
          option_not_open: 'the household declined the home or the carrier cancelled it meanwhile.',
        },
        422: { invalid_field: 'decision is not approve or decline, or a decline without reason.' },
      },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const answer = body.decision === 'approve' ? { decision: 'approve' as const } : { decision: 'decline' as const, reason: body.reason! };
      return c.json(single(await answerApplication(c.get('caller'), c.req.valid('param').id, answer)), 200);
    },
  );
