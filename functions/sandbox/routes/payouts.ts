import { single } from '../../../shared/http/envelope.ts';
import { createRoutes, dataOf, jsonBody, jsonResponse } from '../../../shared/http/routes.ts';
import { defineRoute } from '../errors.ts';
import { PayoutStatus } from '../../../shared/properties/payouts.ts';
import { actAsProcessor } from '../helpers.ts';
import { ProcessorAction } from '../schemas.ts';
import { sandboxOnlyRefusal } from '../guard.ts';

// Provider side: the payment processor finishing or undoing the payout-account setup.

export const payoutRoutes = createRoutes().openapi(
  defineRoute({
    method: 'post',
    path: '/payouts',
    operationId: 'setSandboxPayoutAccount',
    tags: ['Sandbox'],
    summary: 'Act as the payment processor on the sandbox payout account',
    description:
      'Sets any of `connected`, `charges_enabled`, `payouts_enabled`, as the processor would report after the provider finishes or ' +
      'undoes setup in a browser. Enabling charges or payouts implies a connected account; disconnecting turns both off. ' +
      "With `charges_enabled: false` the provider's homes cannot be placed in sandbox. Sandbox keys only.",
    scope: 'properties:write',
    request: {
      body: jsonBody(ProcessorAction),
    },
    responses: { 200: jsonResponse(dataOf(PayoutStatus), 'The payout account status after the change.') },
    errors: {
      403: {
        ...sandboxOnlyRefusal,
        forbidden: 'the key lacks properties:write (carrier keys never have it).',
      },
      422: {
        invalid_field: 'a value is not a boolean, or charges/payouts are enabled while disconnecting.',
      },
    },
  }),
  async (c) => {
    const caller = c.get('caller');
    const status = await actAsProcessor(caller, c.req.valid('json'));
    return c.json(single(status), 200);
  },
);
