import type { Environment } from '../../db/tenant.ts';
import { config } from '../../config.ts';
import { sandboxEmail, sandboxESignature, sandboxPayments } from './sandbox.ts';
import { stripePayments } from './stripe.ts';
import type { EmailPort, ESignaturePort, PaymentsPort } from './types.ts';

// Which adapter serves an environment. Sandbox always gets the sandbox adapters, whatever is
// configured, so a sandbox key can never reach a real party.

export interface PlacementPorts {
  esign: ESignaturePort;
  email: EmailPort;
}

export function placementPorts(environment: Environment): PlacementPorts {
  if (environment === 'sandbox') return { esign: sandboxESignature, email: sandboxEmail };
  throw new Error('The live e-signature and email adapters are not configured');
}

/**
 * The payment processor of an environment: sandbox never reaches it; live uses Stripe Connect with
 * STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET, and refuses to run without them.
 */
export function paymentsPort(environment: Environment): PaymentsPort {
  if (environment === 'sandbox') return sandboxPayments;
  const secretKey = config.stripeSecretKey();
  const webhookSecret = config.stripeWebhookSecret();
  if (!secretKey || !webhookSecret) throw new Error('STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET must be set for live payments');
  return (livePayments ??= stripePayments({ secretKey, webhookSecret }));
}
let livePayments: PaymentsPort | undefined;
