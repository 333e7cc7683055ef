// Settings come from environment variables on both runtimes (Deno on the Edge, Node locally).
// Every setting has a production-safe default; see the settings table of docs/operating.md.

type EnvReader = (name: string) => string | undefined;

const readEnv: EnvReader = (name) => {
  const deno = (globalThis as { Deno?: { env: { get(n: string): string | undefined } } }).Deno;
  if (deno) return deno.env.get(name);
  return (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env[name];
};

export function setting(name: string, fallback: string): string {
  const value = readEnv(name);
  return value === undefined || value === '' ? fallback : value;
}

export function intSetting(name: string, fallback: number): number {
  const value = Number(setting(name, String(fallback)));
  if (!Number.isFinite(value)) throw new Error(`Setting ${name} must be a number`);
  return value;
}

export function boolSetting(name: string, fallback: boolean): boolean {
  return setting(name, String(fallback)).toLowerCase() === 'true';
}

export const config = {
  /** DATABASE_URL, else the URL Supabase gives every edge function. */
  databaseUrl: () => readEnv('DATABASE_URL') || readEnv('SUPABASE_DB_URL'),
  /**
   * Connections per pool: a local server process has two (requests, and the background thread's
   * jobs and deliveries), a function's instance one. Measured under the surge on 2 cores
   * (docs/performance.md): 5 a pool spent 0.84x of the database's CPU that 10 did on one process
   * and 0.91x on two; 3 a pool spent 0.92x and 0.88x of what 5 did, and no wait grew past its target.
   */
  dbPoolSize: () => intSetting('DB_POOL_SIZE', 3),
  logLevel: () => setting('LOG_LEVEL', 'info'),
  /** Which X-Forwarded-For hop, counted from the right, is the client's address (1: the last, appended by the platform's edge). */
  clientAddressHop: () => Math.max(1, intSetting('CLIENT_ADDRESS_HOP', 1)),
  /** Public address of the pay-in-app web application (used in placement links). */
  payInAppBaseUrl: () => setting('PAY_IN_APP_BASE_URL', 'https://pay.housing-placement.example'),
  /** Deliver webhooks to loopback and private addresses (local development and tests only). */
  webhookAllowPrivateNetworks: () => boolSetting('WEBHOOK_ALLOW_PRIVATE_NETWORKS', false),
  /** Seconds to wait after each failed webhook attempt; after the last step a delivery is abandoned. */
  webhookRetrySchedule: () => secondsList('WEBHOOK_RETRY_SCHEDULE', '60,300,1800,7200,21600'),
  /** How long a webhook receiver has to answer. */
  webhookTimeoutMs: () => intSetting('WEBHOOK_TIMEOUT_MS', 10_000),
  /**
   * How often the local server's dispatcher (and its durable jobs) looks for due work; null when its
   * timer is switched off (`0` or `off`), where pg_cron drives delivery through the dispatcher function.
   */
  webhookDispatchIntervalMs: () => timerSetting('WEBHOOK_DISPATCH_INTERVAL_MS', 1000),
  /**
   * How long one call of the dispatcher function claims deliveries and jobs; what is still due then
   * is left for the next call (pg_cron's next tick). Well inside the Edge Runtime's limits per
   * invocation (docs/operations.md#the-edge-runtimes-limits).
   */
  webhookDispatchBudgetMs: () => Math.max(1, intSetting('WEBHOOK_DISPATCH_BUDGET_MS', 8_000)),
  /**
   * The CPU time after which one call of the dispatcher function claims no more deliveries or jobs:
   * half the Edge Runtime's 2 s per request, the other half left for what it already claimed
   * (docs/operations.md#the-edge-runtimes-limits).
   */
  webhookDispatchCpuBudgetMs: () => Math.max(1, intSetting('WEBHOOK_DISPATCH_CPU_BUDGET_MS', 1_000)),
  /**
   * Deliveries one call of the dispatcher function claims at most, whatever the runtime measures
   * (docs/operations.md#the-edge-runtimes-limits gives the CPU cost of one it comes from).
   */
  webhookDispatchMaxDeliveries: () => Math.max(1, intSetting('WEBHOOK_DISPATCH_MAX_DELIVERIES', 600)),
  /** Stripe: the platform's secret key, for live charges on landlords' connected accounts. */
  stripeSecretKey: () => setting('STRIPE_SECRET_KEY', ''),
  /** Stripe: the signing secret of the Connect webhook endpoint that posts to /payments-webhook. */
  stripeWebhookSecret: () => setting('STRIPE_WEBHOOK_SECRET', ''),
  /** Secret that signs pay-page links; unset, each process signs with a random key of its own. */
  payLinkSecret: () => setting('PAY_LINK_SECRET', ''),
  /** How long a pay-page link stays valid, in seconds. */
  payLinkTtlSeconds: () => intSetting('PAY_LINK_TTL_SECONDS', 3600),
  /** How long a household's link to a home sent to it stays valid, in seconds (14 days). */
  householdLinkTtlSeconds: () => intSetting('HOUSEHOLD_LINK_TTL_SECONDS', 14 * 86_400),
  /** The local server's port (the default is Supabase's local API port, so local URLs match `supabase start`). */
  port: () => intSetting('PORT', 54321),
  /** The service's public address ending in /functions/v1 (shared/public-url.ts reads it, with its local default). */
  publicBaseUrl: () => setting('PUBLIC_BASE_URL', ''),
  /** A live-mode processor key (`sk_live_`, `rk_live_`): the deployment takes real money, so it is production. */
  liveModeProcessor: () => /^(sk|rk)_live_/.test(setting('STRIPE_SECRET_KEY', '')),
  /** Shared secret of the internal webhook-dispatcher function; unset, the function refuses every call. */
  webhookDispatcherSecret: () => setting('WEBHOOK_DISPATCHER_SECRET', ''),
};

/** The longest delay Node's timers hold (2^31 - 1 ms, about 24.8 days); a longer one fires after 1 ms. */
const longestTimerMs = 2_147_483_647;

/** A timer's period in milliseconds, or null for `0` or `off` (the timer is switched off). */
function timerSetting(name: string, fallback: number): number | null {
  const value = setting(name, String(fallback)).trim();
  if (value.toLowerCase() === 'off') return null;
  const ms = Number(value);
  if (ms === 0) return null;
  if (!Number.isFinite(ms) || ms < 0) throw new Error(`Setting ${name}=${value} must be a number of milliseconds, or 0 or off to switch the timer off`);
  if (ms > longestTimerMs) {
    throw new Error(`Setting ${name}=${value} is beyond what a timer can wait (at most ${longestTimerMs} ms, about 24.8 days; longer would fire every millisecond): set at most ${longestTimerMs}, or 0 or off to switch the timer off`);
  }
  return ms;
}

function secondsList(name: string, fallback: string): number[] {
  const steps = setting(name, fallback).split(',').map((step) => Number(step.trim()));
  if (steps.some((step) => !Number.isFinite(step) || step < 0)) throw new Error(`Setting ${name} must be a comma-separated list of seconds`);
  return steps;
}
