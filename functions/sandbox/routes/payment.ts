import { single } from '../../../shared/http/envelope.ts';
import { createRoutes, dataOf, jsonBody, jsonResponse } from '../../../shared/http/routes.ts';
import { defineRoute } from '../errors.ts';
import { answer } from '../../../shared/placements/commands/answers.ts';
import { paySandbox } from '../../../shared/placements/commands/payments.ts';
import { PlacementHome } from '../../../shared/placements/schemas.ts';
import { HomeOnRequestParams, PaymentAction } from '../schemas.ts';
import { homeHelperErrors } from '../guard.ts';

// Carrier side: the payer, paying the amount due now in the pay-in-app page. Exactly what the
// page's sandbox buttons do (shared/placements/commands/payments.ts).

export const paymentRoutes = createRoutes().openapi(
  defineRoute({
    method: 'post',
    path: '/claims/{reference}/homes/{propertyId}/payment',
    operationId: 'actAsPayer',
    tags: ['Sandbox'],
    summary: 'Act as the payer: pay (or fail to pay) the amount due now',
    description:
      'Pays what the pay-in-app page shows as due now: the first payment (first month, one-off fees, deposits) once the lease is fully signed, ' +
      'then each month of rent from its first day. A charge whose parts have different payers is paid in shares, one payment per payer: ' +
      'every share due now, or only `payer`\'s. `succeeded` records each payment and emits payment.succeeded to the carrier and the provider; the ' +
      'payment that completes the first payment confirms the booking (the lease hold becomes a booking hold, the request moves to ' +
      'booking_confirmed, booking.confirmed to both); `failed` emits payment.failed to both and changes nothing else; `duplicate` does what ' +
      '`succeeded` does, then clears the same share a second time: that payment is kept with `duplicate_of` naming the first, refunded ' +
      'automatically (an approved refund request, `automatic: true`; payment.refunded when issued) and announced (payment.duplicate), and it ' +
      'counts for nothing in what is paid. Sandbox keys only.',
    scope: 'options:write',
    request: { params: HomeOnRequestParams, body: jsonBody(PaymentAction) },
    responses: { 200: jsonResponse(dataOf(PlacementHome), 'The home on the request after the payment.') },
    errors: {
      ...homeHelperErrors,
      409: {
        not_on_request: 'the home is not on the request (or was cancelled, with nothing of its stay left to pay: a stay cancelled once moved in still pays the nights used before the cancellation)',
        lease_not_signed: 'the lease is not fully signed yet',
        charges_disabled: 'the landlord\'s account cannot take charges',
        nothing_due: 'every period started so far is paid, or the payer named owes nothing now.',
      },
      422: {
        invalid_field: 'outcome is not succeeded, failed or duplicate, or payer is not a payer.',
      },
    },
  }),
  async (c) => {
    const { reference, propertyId } = c.req.valid('param');
    const { outcome, payer } = c.req.valid('json');
    // A cancelled placement is let through to pay what its stay still owes, if anything (payable says).
    const home = await answer(c.get('caller'), reference, propertyId, async (tx, claim, placement) => {
      await paySandbox(tx, claim, placement, outcome, { payer });
    }, { orCancelled: true });
    return c.json(single(home), 200);
  },
);
