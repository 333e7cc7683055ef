import { createRoutes, dataOf, jsonBody, jsonResponse } from '../../../shared/http/routes.ts';
import { defineRoute } from '../errors.ts';
import { single } from '../../../shared/http/envelope.ts';
import { cancelBooking, confirmMoveIn } from '../../../shared/placements/commands/booking.ts';
import { requestRefund } from '../../../shared/placements/commands/refunds.ts';
import { listExtensions, requestExtension } from '../../../shared/placements/commands/extensions.ts';
import { readStatement } from '../../../shared/placements/commands/statement.ts';
import { statementCsv, statementFileName } from '../../../shared/placements/statement-lines.ts';
import { negotiate } from '../../../shared/http/negotiate.ts';
import { z } from '@hono/zod-openapi';
import {
  CancelInput, Cancelled, Extension, ExtensionInput, ExtensionQuery, MoveInConfirmed, PropertyRef, RefundInput, RefundRequested, Statement,
  StatementQuery,
} from '../../../shared/placements/schemas.ts';
import { ReferenceParam } from '../schemas.ts';

// The stay and the money after payment: move-in, cancellation and refund requests. Handlers are
// thin: each calls its command (shared/placements/commands/booking.ts, refunds.ts).

const tags = ['Placement'];

export const bookingRoutes = createRoutes()
  .openapi(
    defineRoute({
      method: 'post',
      path: '/{reference}/confirm-move-in',
      operationId: 'confirmMoveIn',
      tags,
      summary: 'Confirm the household moved in',
      description:
        'Records the move-in on the booking, closes the placement lifecycle and starts the stay: the request moves to move_in_complete, ' +
        'then to in_stay from the next day; on the move-out date the stay is closed out (move_out_closeout, booking completed). ' +
        'The provider gets booking.updated (change move_in_confirmed) and sees move_in_confirmed_at. Calling it again answers the same without a second move. ' +
        'Accepted from the booking\'s move-in date on, by the organisation\'s clock (its sandbox clock in sandbox, the wall clock in live): the day counts ' +
        'once it has begun somewhere (UTC+14), since the home\'s time zone is not known. Before it: 409 move_in_not_yet, whose error.move_in_date is the date.',
      scope: 'options:write',
      request: { params: ReferenceParam, body: jsonBody(PropertyRef) },
      responses: { 200: jsonResponse(dataOf(MoveInConfirmed), 'The move-in.') },
      errors: {
        404: {
          not_found: 'no such request for this organisation in this environment',
        },
        409: {
          not_on_request: 'the home is not on the request (or was cancelled)',
          not_booked: 'the first payment has not cleared yet.',
          move_in_not_yet: "before the booking's move-in date (error.move_in_date); nothing is recorded.",
        },
        422: {
          invalid_field: 'property_id missing or not a uuid.',
        },
      },
    }),
    async (c) => c.json(single(await confirmMoveIn(c.get('caller'), c.req.valid('param').reference, c.req.valid('json').property_id)), 200),
  )
  .openapi(
    defineRoute({
      method: 'post',
      path: '/{reference}/cancel-booking',
      operationId: 'cancelBooking',
      tags,
      summary: 'Cancel a placement, before or after payment',
      description:
        'Cancels the booking (booking.updated, change cancelled, to the provider), removes the calendar holds, withdraws the contract ' +
        '(signature links stop; signatures already collected stay on record), takes the home off the request and back on the market, and emails the landlord, ' +
        'the household and the assigned adjuster. The request stays open; its status moves back to what its remaining homes support ' +
        '(housing_options_found when none is in play). ' +
        'While a settled payment exists the call is refused with 409 already_paid unless force is true; then request a refund from the landlord.',
      scope: 'options:write',
      request: { params: ReferenceParam, body: jsonBody(CancelInput) },
      responses: { 200: jsonResponse(dataOf(Cancelled), 'The cancellation.') },
      errors: {
        404: {
          not_found: 'no such request for this organisation in this environment',
          not_on_request: 'the home was never added to this request (or is already cancelled).',
        },
        409: {
          already_paid: 'money has settled and force is not true; error.payment carries id, amount_total_cents and currency.',
        },
        422: {
          invalid_field: 'property_id missing or not a uuid, reason empty or too long, force not a boolean.',
        },
      },
    }),
    async (c) => c.json(single(await cancelBooking(c.get('caller'), c.req.valid('param').reference, c.req.valid('json'))), 200),
  )
  .openapi(
    defineRoute({
      method: 'post',
      path: '/{reference}/refund-request',
      operationId: 'requestRefund',
      tags,
      summary: 'Ask the landlord to refund what is owed back, or a deposit',
      description:
        'Opens a refund request (also after a cancellation). By default it asks for what is owed back to a payer: what that payer settled ' +
        'beyond what the stay now charges (the statement\'s refund_due for it), on the payment that paid it; purpose deposit asks for the ' +
        'deposits held instead. amount may ask for less; more is 422 naming what is owed, unless goodwill is true (then the rest is the ' +
        'landlord\'s goodwill, shown as such on the statement). The landlord approves or declines (provider side: POST ' +
        '/properties/refund-requests/{id}, told by refund.requested; in sandbox the landlord helper). An approval returns what is owed then ' +
        '(a stay changed meanwhile returns no more than it owes back then) with the service fee on the rent returned, and payment.refunded ' +
        'reports the outcome either way. One request is open at a time; after a decline a new one may follow.',
      scope: 'options:write',
      request: { params: ReferenceParam, body: jsonBody(RefundInput) },
      responses: { 202: jsonResponse(dataOf(RefundRequested), 'The refund request, waiting for the landlord.') },
      errors: {
        404: {
          not_found: 'no such request for this organisation in this environment',
          not_on_request: 'the home was never added to this request.',
        },
        409: {
          nothing_to_refund: 'nothing is owed back (or no deposit is held) to return, and goodwill is not asked; or no settled payment on the home with anything left to refund (or payment_id names none)',
          refund_pending: 'a refund request is already open.',
        },
        422: {
          invalid_field: 'property_id missing or not a uuid, reason empty or too long, payment_id not a uuid, purpose not owed_back or deposit, goodwill not a boolean; amount not positive whole cents, more than is owed back (or held) without goodwill, or more than is left of the payment (field amount, naming what is owed).',
        },
      },
    }),
    async (c) => c.json(single(await requestRefund(c.get('caller'), c.req.valid('param').reference, c.req.valid('json'))), 202),
  )
  .openapi(
    defineRoute({
      method: 'post',
      path: '/{reference}/extensions',
      operationId: 'extendStay',
      tags,
      summary: 'Extend a stay (an addendum to the signed lease)',
      description:
        'Beyond the specification. Asks for more nights on a booked stay: move_out is the new move-out. The added nights (from the stay\'s ' +
        'move-out to the night before the new one) are held at once (409 dates_unavailable with conflicts when something holds them), priced ' +
        'by the signed terms at the tier of the extended stay\'s length, and an addendum goes out for both signatures like the lease ' +
        '(lease.sent, lease.first_signed, lease.signed; in sandbox the household and landlord helpers sign it). Once signed, its amount is what ' +
        'the pay page and the payment helper collect next, on the landlord\'s account; when it clears the stay ends on the new move-out ' +
        '(payment.succeeded with charge_type extension; booking.updated, change dates_changed, to the provider; a dates.changed timeline ' +
        'entry). Declined by the landlord, or unpaid when the stay ends, it is withdrawn and the stay is as it was (timeline entries ' +
        'extension.requested, then extension.declined or extension.lapsed). ' +
        'The same call again (same move_out) answers the open extension.',
      scope: 'options:write',
      request: { params: ReferenceParam, body: jsonBody(ExtensionInput) },
      responses: { 201: jsonResponse(dataOf(Extension), 'The extension, awaiting signature.') },
      errors: {
        400: { could_not_set_dates: 'the stay has ended (its move-out date came).' },
        404: { not_found: 'no such request for this organisation in this environment' },
        409: {
          not_on_request: 'the home is not on the request (or was cancelled)',
          not_booked: 'the lease is not signed by both, or the first payment has not cleared',
          extension_pending: 'another extension is open (awaiting signature or payment)',
          dates_unavailable: 'something holds part of the added nights; error.conflicts lists what.',
        },
        422: { invalid_field: 'property_id or move_out missing or malformed, or move_out not after the stay\'s move-out.' },
      },
    }),
    async (c) => c.json(single(await requestExtension(c.get('caller'), c.req.valid('param').reference, c.req.valid('json'))), 201),
  )
  .openapi(
    defineRoute({
      method: 'get',
      path: '/{reference}/extensions',
      operationId: 'listExtensions',
      tags,
      summary: 'List the extensions of a stay',
      description: 'Beyond the specification. The extensions of the home on the request, newest first, each with its addendum, price and status.',
      scope: 'placements:read',
      request: { params: ReferenceParam, query: ExtensionQuery },
      responses: { 200: jsonResponse(dataOf(z.array(Extension)), 'The extensions.') },
      errors: {
        404: { not_found: 'no such request for this organisation in this environment' },
        409: { not_on_request: 'the home is not on the request (or was cancelled).' },
        422: { invalid_field: 'property_id missing or not a uuid.' },
      },
    }),
    async (c) => c.json(single(await listExtensions(c.get('caller'), c.req.valid('param').reference, c.req.valid('query').property_id)), 200),
  )
  .openapi(
    defineRoute({
      method: 'get',
      path: '/{reference}/statement',
      operationId: 'getStatement',
      tags,
      summary: 'The statement of a stay: its ledger, payments and totals',
      description:
        'Beyond the specification. What the stay on this home charged and was paid, as an adjuster files it with the claim. Every amount ' +
        'is a posted ledger entry that is never changed: a contract version posts its charges when both have signed it (each night at its ' +
        'signed price, the first payment with its one-off fees and deposits); a shortening posts the release of the nights it gives back; ' +
        'an extension restores released nights at their signed price and charges nights never signed before; a lapsed extension and a ' +
        'cancellation post reversals. Totals: charged (the sum of the entries), paid, refunded, due now (exactly what the checkout asks ' +
        'for), refund due (paid beyond what is now charged), billed so far and scheduled for rent periods still to begin, deposits held and ' +
        'returned, by payer, and the ALE the stay consumes against the limit of the request. Each entry says what it is in a sentence ' +
        '(description) and in fields (change_of: the day of the change that posted it), and carries its payer\'s running balance (balance_after). ' +
        'The service fee a refund of rent returns is the landlord\'s, listed apart (service_fees_returned). ' +
        'A cancelled placement still has its statement.\n\n' +
        'With Accept: text/csv (preferred to application/json) the same entries come as CSV for a claim file (RFC 4180): one header row, ' +
        'one row per entry in posting order, amounts with two decimals, fields with a comma, a quote or a line break quoted, CRLF line ends, ' +
        'and Content-Disposition: attachment with a file name holding the reference. Without Accept, with */* or application/json, or naming ' +
        'neither, the answer is JSON (as every route answers; the API answers no 406). Errors are JSON either way.',
      scope: 'placements:read',
      request: { params: ReferenceParam, query: StatementQuery },
      responses: {
        200: {
          description: 'The statement: JSON, or its entries as CSV when Accept prefers text/csv.',
          headers: {
            'Content-Disposition': { description: 'The CSV only: attachment; filename="statement-<reference>-<property_id>.csv".', schema: { type: 'string' } },
            Vary: { description: 'Accept: the answer depends on it.', schema: { type: 'string' } },
          },
          content: {
            'application/json': { schema: dataOf(Statement) },
            'text/csv': {
              schema: z.string().openapi({
                description: 'Header row: change_of, description, payer, kind, cause, refund_purpose, part, label, charge_type, period_start, first_night, ' +
                  'last_night, nights, scheduled, currency, amount, balance_after, version, lease_id, id, adjusts, settled_by, payment_id, refund_request_id, ' +
                  'posted_at (each as the JSON entry\'s field; amounts with two decimals; empty for null). One row per entry.',
                example: 'change_of,description,payer,kind,...\r\n2027-01-10,"Rent 2027-01-25 to 2027-02-03, released by the shortening of 2027-01-10",carrier,release,...\r\n',
              }),
            },
          },
        },
      },
      errors: {
        404: { not_found: 'no such request for this organisation in this environment' },
        409: { not_on_request: 'the home was never put on the request.' },
        422: { invalid_field: 'property_id missing or not a uuid.' },
      },
    }),
    async (c) => {
      const statement = await readStatement(c.get('caller'), c.req.valid('param').reference, c.req.valid('query').property_id);
      c.header('Vary', 'Accept');
      if (negotiate(c.req.header('accept'), ['application/json', 'text/csv']) === 'text/csv') {
        c.header('Content-Disposition', `attachment; filename="${statementFileName(statement)}"`);
        return c.body(statementCsv(statement), 200, { 'Content-Type': 'text/csv; charset=utf-8; header=present' });
      }
      return c.json(single(statement), 200);
    },
  );
