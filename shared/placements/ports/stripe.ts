import Stripe from 'stripe';
import {
  CallbackRejected,
  type AccountLinkRequest,
  type CheckoutRequest,
  type PaymentsPort,
  type ProcessorNotification,
  type RefundRequest,
} from './types.ts';

// Live payments on Stripe Connect with the official SDK, over its fetch HTTP client and the
// SubtleCrypto provider so it runs on the Edge Runtime (no Node built-ins).
//
// - Every charge is a DIRECT charge on the landlord's connected account (the `Stripe-Account`
//   header), the service's fee taken as `application_fee_amount`: the service never holds money.
// - Refunds are made on the same connected account; the application fee on the rent refunded comes back
//   as an application fee refund on the platform's account.
// - Notifications come from a Connect webhook endpoint (events of connected accounts carry
//   `account`); their signature is verified over the raw body with the endpoint's signing secret.

export interface StripeSettings {
  /** The platform's secret key (sk_live_... / rk_live_...). */
  secretKey: string;
  /** The signing secret of the Connect webhook endpoint (whsec_...). */
  webhookSecret: string;
  /** The transport; the runtime's fetch unless a stand-in is given (tests). */
  fetch?: typeof fetch;
}

const handledEvents = new Set([
  'payment_intent.succeeded',
  'payment_intent.payment_failed',
  'charge.refunded',
  'account.updated',
]);

export function stripePayments(settings: StripeSettings): PaymentsPort {
  /** Whether the deployment's key is a live-mode key (sk_live_, rk_live_): its events must be live-mode too. */
  const liveKey = /^(sk|rk)_live_/.test(settings.secretKey);
  const stripe = new Stripe(settings.secretKey, {
    httpClient: Stripe.createFetchHttpClient(settings.fetch ?? ((input, init) => fetch(input, init))),
    maxNetworkRetries: 2,
    appInfo: { name: 'housing-placement-service' },
  });
  const cryptoProvider = Stripe.createSubtleCryptoProvider();

  return {
    kind: 'live',

    async createCheckout(request: CheckoutRequest) {
      const session = await stripe.checkout.sessions.create(
        {
          mode: 'payment',
          line_items: [
            {
              quantity: 1,
              price_data: {
                currency: request.currency.toLowerCase(),
                unit_amount: request.amountCents,
                product_data: { name: request.description },
              },
            },
          ],
          payment_intent_data: {
            application_fee_amount: request.applicationFeeCents,
            description: request.description,
            metadata: request.metadata,
          },
          metadata: request.metadata,
          success_url: request.successUrl,
          cancel_url: request.cancelUrl,
          expires_at: Math.floor(request.expiresAt.getTime() / 1000),
        },
        { stripeAccount: request.connectedAccount, idempotencyKey: request.idempotencyKey },
      );
      if (!session.url) throw new Error('Stripe returned a checkout session without a url');
      return { providerRef: session.id, url: session.url };
    },

    async refund(request: RefundRequest) {
      const refund = await stripe.refunds.create(
        {
          payment_intent: request.paymentRef,
          amount: request.amountCents,
          // Stripe would return the fee in proportion to the whole charge, deposits included; the
          // service returns its fee on the rent refunded only, as its own application fee refund.
          refund_application_fee: false,
          metadata: request.metadata,
        },
        { stripeAccount: request.connectedAccount, idempotencyKey: request.idempotencyKey },
      );
      if (request.platformFeeCents > 0) {
        const intent = await stripe.paymentIntents.retrieve(request.paymentRef, { expand: ['latest_charge'] }, { stripeAccount: request.connectedAccount });
        const charge = intent.latest_charge;
        const fee = charge && typeof charge !== 'string' ? charge.application_fee : null;
        const feeId = typeof fee === 'string' ? fee : fee?.id;
        if (!feeId) throw new Error('the refunded payment has no application fee to return');
        // Application fees are the platform's: refunded on the platform's own account.
        await stripe.applicationFees.createRefund(feeId, { amount: request.platformFeeCents, metadata: request.metadata }, { idempotencyKey: `${request.idempotencyKey}:fee` });
      }
      return { providerRef: refund.id, status: refund.status ?? 'pending' };
    },

    async accountLink(request: AccountLinkRequest) {
      const connectedAccount =
        request.connectedAccount ??
        (await stripe.accounts.create({ type: 'express', email: request.email, capabilities: { card_payments: { requested: true }, transfers: { requested: true } } })).id;
      const link = await stripe.accountLinks.create({
        account: connectedAccount,
        type: 'account_onboarding',
        refresh_url: request.refreshUrl,
        return_url: request.returnUrl,
      });
      return { connectedAccount, url: link.url };
    },

    async readNotification(headers: Headers, rawBody: string): Promise<ProcessorNotification | null> {
      const signature = headers.get('stripe-signature');
      if (!signature) throw new CallbackRejected('The Stripe-Signature header is missing.');
      let event: Stripe.Event;
      try {
        event = await stripe.webhooks.constructEventAsync(rawBody, signature, settings.webhookSecret, notificationToleranceSeconds, cryptoProvider);
      } catch (error) {
        throw new CallbackRejected(error instanceof Error ? error.message : 'The signature does not verify.');
      }
      // The SDK refuses a signed time too far in the past only: one ahead of the clock would let a
      // captured notification be replayed for as long past its sending as it was dated ahead.
      const signedAt = Number(/(?:^|,)\s*t=(\d+)/.exec(signature)?.[1]);
      if (!(signedAt <= Date.now() / 1000 + notificationToleranceSeconds)) {
        throw new CallbackRejected(`The signature's timestamp is more than ${notificationToleranceSeconds} s ahead of the service's clock.`);
      }
      if (!handledEvents.has(event.type)) return null;
      // An event of the other mode (a test-mode event reaching a live-key deployment, or the reverse)
      // is not this deployment's: acknowledged, never acted on.
      if (Boolean(event.livemode) !== liveKey) return null;
      return readEvent(event);
    },
  };
}

/** How far from now a notification's signed time may be, either way (the processor's own default). */
const notificationToleranceSeconds = 300;

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const idOf = (value: unknown): string | null =>
  typeof value === 'string' ? value : value && typeof value === 'object' && 'id' in value ? text((value as { id: unknown }).id) : null;

/** The part of a verified event the service acts on. */
export function readEvent(event: Stripe.Event): ProcessorNotification | null {
  const base = { eventId: event.id, connectedAccount: event.account ?? null };
  switch (event.type) {
    case 'payment_intent.succeeded':
    case 'payment_intent.payment_failed': {
      const intent = event.data.object;
      return {
        ...base,
        kind: event.type === 'payment_intent.succeeded' ? 'payment_succeeded' : 'payment_failed',
        paymentRef: intent.id,
        amountCents: event.type === 'payment_intent.succeeded' ? intent.amount_received || intent.amount : intent.amount,
        currency: intent.currency,
        metadata: { ...(intent.metadata ?? {}) },
        failureMessage: intent.last_payment_error?.message ?? undefined,
      };
    }
    case 'charge.refunded': {
      const charge = event.data.object;
      const paymentRef = idOf(charge.payment_intent);
      if (!paymentRef) return null;
      return { ...base, kind: 'refunded', paymentRef, amountRefundedCents: charge.amount_refunded, metadata: { ...(charge.metadata ?? {}) } };
    }
    case 'account.updated': {
      const account = event.data.object;
      const external = account.external_accounts?.data?.find((item) => item.object === 'bank_account');
      return {
        eventId: event.id,
        connectedAccount: account.id,
        kind: 'account_updated',
        chargesEnabled: account.charges_enabled ?? false,
        payoutsEnabled: account.payouts_enabled ?? false,
        detailsSubmitted: account.details_submitted ?? false,
        bankAccountLast4: external && 'last4' in external ? (external.last4 ?? null) : null,
      };
    }
    default:
      return null;
  }
}

