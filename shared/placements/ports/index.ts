import { setting } from '../../config.ts';
import type { Environment } from '../../db/tenant.ts';
import { config } from '../../config.ts';
import { documensoESignature } from './documenso.ts';
import { NotConfigured, type Transport } from './provider.ts';
import { resendEmail } from './resend.ts';
import { smtpEmail } from './smtp.ts';
import { sandboxEmail, sandboxESignature, sandboxPayments } from './sandbox.ts';
import { stripePayments } from './stripe.ts';
import type { EmailPort, ESignaturePort, PaymentsPort } from './types.ts';

// Which adapter serves an environment. Sandbox always gets the sandbox adapters, whatever is
// configured, so a sandbox key can never reach a real party. Live gets Documenso and Resend (or SMTP
// with EMAIL_TRANSPORT=smtp: a mail server, or a local catcher such as Mailpit), built
// from the settings when asked (never at import): a missing setting makes the adapter's calls throw
// "... not configured: set X", which the durable job that made the call logs and retries.

export interface PlacementPorts {
  esign: ESignaturePort;
  email: EmailPort;
}

export interface PlacementPortOptions {
  /** The live adapters' transport (a stand-in in tests); default: the runtime's fetch. */
  fetch?: Transport;
}

/**
 * The settings live email still lacks (empty when it can send; sandbox never lacks any). A caller that
 * would only queue a message that cannot go out says so instead (the household's link).
 */
/** Whether live email leaves over SMTP (EMAIL_TRANSPORT=smtp) rather than Resend's API. */
const emailOverSmtp = () => setting('EMAIL_TRANSPORT', 'resend') === 'smtp';

export function emailSettingsMissing(environment: Environment): string[] {
  if (environment === 'sandbox') return [];
  const needed = emailOverSmtp() ? ['SMTP_URL', 'EMAIL_FROM'] : ['EMAIL_API_KEY', 'EMAIL_FROM'];
  return needed.filter((name) => setting(name, '') === '');
}

export const defaultEsignApiUrl = 'https://app.documenso.com/api/v2';
export const defaultEmailApiUrl = 'https://api.resend.com';

export function placementPorts(environment: Environment, options: PlacementPortOptions = {}): PlacementPorts {
  if (environment === 'sandbox') return { esign: sandboxESignature, email: sandboxEmail };
  return {
    esign: documensoESignature({
      apiUrl: setting('ESIGN_API_URL', defaultEsignApiUrl),
      apiKey: setting('ESIGN_API_KEY', ''),
      templateId: setting('ESIGN_TEMPLATE_ID', ''),
      callbackSecret: setting('ESIGN_CALLBACK_SECRET', ''),
      fetch: options.fetch,
    }),
    email: emailOverSmtp()
      ? smtpEmail({ url: setting('SMTP_URL', ''), from: setting('EMAIL_FROM', '') })
      : resendEmail({
        apiUrl: setting('EMAIL_API_URL', defaultEmailApiUrl),
        apiKey: setting('EMAIL_API_KEY', ''),
        from: setting('EMAIL_FROM', ''),
        fetch: options.fetch,
      }),
  };
}

/**
 * The payment processor of an environment: sandbox never reaches it; live uses Stripe Connect with
 * STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET, and refuses to run without them.
 */
export function paymentsPort(environment: Environment): PaymentsPort {
  if (environment === 'sandbox') return sandboxPayments;
  const secretKey = config.stripeSecretKey();
  const webhookSecret = config.stripeWebhookSecret();
  if (!secretKey || !webhookSecret) throw new NotConfigured('Live payments are', 'STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET');
  return (livePayments ??= stripePayments({ secretKey, webhookSecret }));
}
let livePayments: PaymentsPort | undefined;
