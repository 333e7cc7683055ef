import { single } from '../../../shared/http/envelope.ts';
import { createRoutes, dataOf, jsonBody, jsonResponse, pageOf } from '../../../shared/http/routes.ts';
import { defineRoute } from '../errors.ts';
import { householdAnswers, landlordAnswers, NotSentYet, type HouseholdAnswer, type LandlordAnswer } from '../../../shared/placements/commands/answers.ts';
import { answerOnceSent, retryAfterSeconds } from '../../../shared/placements/commands/sandbox-sign.ts';
import { jobRegistry } from '../../../shared/job-registry.ts';
import { PlacementHome } from '../../../shared/placements/schemas.ts';
import {
  HomeOnRequestParams, HouseholdAction, LandlordAction, SandboxEmail, SandboxEmailsQuery, SandboxHouseholdLink, type LandlordActionBody,
} from '../schemas.ts';
import { sandboxHouseholdLink } from '../../../shared/placements/commands/household-link.ts';
import { outboxPage } from '../helpers.ts';
import { homeHelperErrors, sandboxOnlyRefusal } from '../guard.ts';
import type { Context } from 'hono';
import type { AppEnv } from '../../../shared/http/context.ts';

// Carrier side: the household and the landlord of a home on a request. Each call runs exactly the
// command the real counterpart's action runs (shared/placements/commands/answers.ts).

const tags = ['Sandbox'];

function householdAnswer(body: HouseholdAction): HouseholdAnswer {
  switch (body.action) {
    case 'decline':
      return { action: 'decline', reason: body.reason! };
    case 'propose_dates':
      return { action: 'propose_dates', move_in: body.move_in!, move_out: body.move_out! };
    default:
      return { action: body.action };
  }
}

function landlordAnswer(body: LandlordActionBody): LandlordAnswer {
  return body.action === 'decline_application' ? { action: 'decline_application', reason: body.reason! } : { action: body.action };
}

/** A contract still on its way after the helper's wait: the 409 says when to try again. */
async function retryLater<T>(c: Context<AppEnv>, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof NotSentYet) c.header('Retry-After', String(retryAfterSeconds));
    throw error;
  }
}

/** lease_not_signable as both signing helpers document it. */
const notSignable =
  'nothing waits for this signature (no contract yet, already signed, the household signs before the landlord), or, after the helper waited up to ' +
  '10 s for it, the contract or the extension\'s addendum is still on its way to the signers (Retry-After says when to try again)';

export const counterpartRoutes = createRoutes()
  .openapi(
    defineRoute({
      method: 'post',
      path: '/claims/{reference}/homes/{propertyId}/household',
      operationId: 'actAsHousehold',
      tags,
      summary: 'Act as the household (or the named signer, for sign)',
      description:
        'save (option.saved), decline with reason (option.declined; the placement stops), apply (to the landlord), propose_dates with move_in and ' +
        'move_out (dates.proposed; the placement waits for POST dates/approve-proposal), sign (the first signature: lease.first_signed; once ' +
        'the lease is signed by both, the open extension\'s addendum). A contract the service is still sending (it goes out within seconds of the ' +
        'dates or the extension) is waited for, up to 10 s, so the helper can be called right after. Sandbox keys only.',
      scope: 'options:write',
      request: { params: HomeOnRequestParams, body: jsonBody(HouseholdAction) },
      responses: { 200: jsonResponse(dataOf(PlacementHome), 'The home on the request after the answer.') },
      errors: {
        ...homeHelperErrors,
        409: {
          not_on_request: 'the home is not on the request',
          option_not_open: 'the offer does not allow the action (declined, already approved, not yet applied)',
          lease_not_signable: notSignable,
          proposal_pending: 'sign while a date proposal waits',
          already_signed: 'propose_dates on a fully signed lease.',
        },
        422: {
          invalid_field: 'unknown action, reason missing to decline, dates missing or misordered, move_in in the past',
          stay_too_short: 'a proposal under 30 days.',
        },
      },
    }),
    async (c) => {
      const { reference, propertyId } = c.req.valid('param');
      const body = householdAnswer(c.req.valid('json'));
      const home = await retryLater(c, answerOnceSent(c.get('caller'), reference, propertyId, (tx, claim, placement) => householdAnswers(tx, claim, placement, body), jobRegistry));
      return c.json(single(home), 200);
    },
  )
  .openapi(
    defineRoute({
      method: 'post',
      path: '/claims/{reference}/homes/{propertyId}/landlord',
      operationId: 'actAsLandlord',
      tags,
      summary: 'Act as the landlord',
      description:
        'approve_application (the household applied; the home becomes approved_to_lease), decline_application with reason (application_status ' +
        'declined; the home leaves play and the request moves back to what its other homes support), sign (the countersignature after the first: lease.signed, ' +
        'payment unlocked). approve_refund issues the refund of the open refund request on the landlord\'s account (a job, within seconds; ' +
        'payment.refunded with outcome approved); decline_refund declines it (payment.refunded with outcome declined; a new request may follow). ' +
        'Without a request waiting they answer 409 no_refund_request. Once the lease is signed by both, sign countersigns the open ' +
        'extension\'s addendum (POST /claims/{reference}/extensions), and decline_extension declines it (withdrawn, its nights released, ' +
        'the stay as it was). sign waits, up to 10 s, for a contract the service is still sending, as the household helper does. Sandbox keys only.',
      scope: 'options:write',
      request: { params: HomeOnRequestParams, body: jsonBody(LandlordAction) },
      responses: { 200: jsonResponse(dataOf(PlacementHome), 'The home on the request after the answer.') },
      errors: {
        ...homeHelperErrors,
        409: {
          not_on_request: 'the home is not on the request',
          option_not_open: 'no application to approve or decline',
          already_answered: 'the landlord already approved or declined the application',
          lease_not_signable: `${notSignable}; decline_extension without an extension awaiting signature`,
          no_refund_request: 'no refund request is open.',
          nothing_to_refund: 'approve_refund: the stay changed since the request so that nothing is owed back (or held) to return; decline it.',
        },
        422: {
          invalid_field: 'unknown action.',
        },
      },
    }),
    async (c) => {
      const { reference, propertyId } = c.req.valid('param');
      const body = landlordAnswer(c.req.valid('json'));
      const refund = body.action === 'approve_refund' || body.action === 'decline_refund';
      const home = await retryLater(c, answerOnceSent(c.get('caller'), reference, propertyId, (tx, claim, placement) => landlordAnswers(tx, claim, placement, body), jobRegistry, { orCancelled: refund }));
      return c.json(single(home), 200);
    },
  )
  .openapi(
    defineRoute({
      method: 'get',
      path: '/claims/{reference}/homes/{propertyId}/household-link',
      operationId: 'getHouseholdLink',
      tags,
      summary: 'The household\'s link to its page for the home (what its email carries)',
      description:
        'In sandbox no household reads its email: this answers the link the email of POST options with action send (or a re-send) ' +
        'carries, signed now, so that the household\'s page can be opened and answered as the household would. Sandbox keys only.',
      scope: 'options:read',
      request: { params: HomeOnRequestParams },
      responses: { 200: jsonResponse(dataOf(SandboxHouseholdLink), 'The link.') },
      errors: {
        ...homeHelperErrors,
        409: {
          not_on_request: 'the home is not on the request',
          option_not_open: 'the home was placed, not sent to the household, or was cancelled.',
        },
      },
    }),
    async (c) => {
      const { reference, propertyId } = c.req.valid('param');
      return c.json(single(await sandboxHouseholdLink(c.get('caller'), reference, propertyId)), 200);
    },
  )
  .openapi(
    defineRoute({
      method: 'get',
      path: '/emails',
      operationId: 'listSandboxEmails',
      tags,
      summary: 'The emails the service sent for this organisation in sandbox',
      description:
        'In sandbox nobody receives the service\'s emails (to the household, the landlord, the adjuster): they are recorded, and read back ' +
        'here, newest first, keyset-paged like every list, with their text and HTML. Sandbox keys only.',
      scope: 'any-read',
      request: { query: SandboxEmailsQuery },
      responses: { 200: jsonResponse(pageOf(SandboxEmail), 'One page of emails.') },
      errors: { 403: { ...sandboxOnlyRefusal, forbidden: 'the key has no read scope.' }, 422: { invalid_field: 'a bad limit or cursor.' } },
    }),
    async (c) => c.json(await outboxPage(c.get('caller'), c.req.valid('query')), 200),
  );
