import { decodeJwt, errors, jwtVerify, SignJWT } from 'jose';
import { config } from '../config.ts';
import type { Environment } from '../db/tenant.ts';
import { isUuid } from '../ids.ts';
import { nowOf } from '../clock/time.ts';
import { NotConfigured } from './ports/provider.ts';
import { log } from '../log.ts';
import { payers } from '../claims/values.ts';
import { publicBaseUrl } from '../public-url.ts';
import type { Payer } from './billing.ts';

// The pay-in-app link: a short-lived signed token (HS256) for one placement (a home on a request)
// in one environment, for one payer. It is the only credential of the pay page, so it names exactly
// what it may pay and nothing else: a link forwarded to the household cannot pay the insurer's share. The signing key is derived per environment from PAY_LINK_SECRET, so a
// sandbox link can never be read as a live one, even with its `env` claim rewritten.

const issuer = 'housing-placement-service';
const audience = 'pay-in-app';

export interface PayLink {
  /** The placement (app.claim_homes.id). */
  placementId: string;
  /** The carrier organisation that owns the request. */
  orgId: string;
  environment: Environment;
  /**
   * The placement's contract version when the link was issued (null before one): a link pays only
   * under the lease it was issued for, so a page opened before the dates changed cannot pay the new
   * version's charges.
   */
  leaseId: string | null;
  /**
   * Whose share the link pays: the page takes that payer's share only. The carrier's link shows
   * every payer's share (the others read-only); a tpa's or a policyholder's shows its own alone.
   */
  payer: Payer;
}

/**
 * Why a link is refused: expired (authentic, too old), invalid (tampered, foreign, malformed), or
 * replaced (a household link of an earlier issue, or sent to an address the request no longer has).
 */
export class PayLinkRejected extends Error {
  constructor(
    readonly reason: 'expired' | 'invalid' | 'replaced',
    message: string,
    /**
     * An expired link that is authentic (its signature checked before its time): what it names, so
     * that the page saying it expired can speak its reader's language. Never set for a forgery.
     */
    readonly names?: { placementId: string; orgId: string; environment: Environment },
  ) {
    super(message);
  }
}

let processSecret: string | undefined;
const keys = new Map<string, Uint8Array>();

/** The shortest PAY_LINK_SECRET accepted: 32 characters (a guessable secret forges every link). */
export const minimumLinkSecretLength = 32;

/**
 * The secret links are signed with. Unset, a process of the local server signs with a random secret
 * of its own (links then work only on the process that issued them: local development). On the Edge
 * Runtime, where every request may meet another worker, unset is refused, as is one too short:
 * NotConfigured names the setting (the pages answer 503 saying so; each function logs it at start).
 */
export function linkSecret(): string {
  const configured = config.payLinkSecret();
  if (configured && configured.length < minimumLinkSecretLength) {
    throw new NotConfigured('Signed links are', `PAY_LINK_SECRET to at least ${minimumLinkSecretLength} characters`);
  }
  if (configured) return configured;
  if (onEdgeRuntime()) throw new NotConfigured('Signed links are', 'PAY_LINK_SECRET');
  return (processSecret ??= crypto.randomUUID() + crypto.randomUUID());
}

/** At a function's start: says in its log, once, that links cannot be signed until the setting is right. */
export function reportLinkSecret(): void {
  try {
    linkSecret();
  } catch (error) {
    if (error instanceof NotConfigured) log.error('signed links are not configured', { error: error.message });
    else throw error;
  }
}

const onEdgeRuntime = () => (globalThis as { EdgeRuntime?: unknown }).EdgeRuntime !== undefined;

/** The environment's signing key: HMAC-SHA256(PAY_LINK_SECRET, "pay-link:<environment>"). */
async function keyFor(environment: Environment): Promise<Uint8Array> {
  const secret = linkSecret();
  const cacheKey = `${secret}:${environment}`;
  const cached = keys.get(cacheKey);
  if (cached) return cached;
  const hmac = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const key = new Uint8Array(await crypto.subtle.sign('HMAC', hmac, new TextEncoder().encode(`pay-link:${environment}`)));
  keys.set(cacheKey, key);
  return key;
}

type Audience = 'pay-in-app' | 'payout-setup' | 'household';

/** The claims every link carries, and what a household link adds (its issue, and whom it was sent to). */
type LinkClaims = { org: string; env: Environment; v?: number; to?: string; lease?: string | null; payer?: Payer };

async function sign(audience: Audience, subject: string, claims: LinkClaims, now: Date, ttlSeconds = config.payLinkTtlSeconds()): Promise<string> {
  const issuedAt = Math.floor(now.getTime() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(issuer)
    .setAudience(audience)
    .setSubject(subject)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ttlSeconds)
    .sign(await keyFor(claims.env));
}

async function verify(audience: Audience, token: string, given?: Date): Promise<{ sub: string; org: string; env: Environment; v?: unknown; to?: unknown; lease?: unknown; payer?: unknown }> {
  let environment: unknown;
  try {
    environment = decodeJwt(token).env;
  } catch {
    throw new PayLinkRejected('invalid', 'This link is not valid.');
  }
  if (environment !== 'live' && environment !== 'sandbox') throw new PayLinkRejected('invalid', 'This link is not valid.');
  // Outside the verification's try: a secret not configured is the service's fault, not the link's.
  const key = await keyFor(environment);
  const now = given ?? (await linkTime(token));
  try {
    const { payload } = await jwtVerify(token, key, {
      issuer,
      audience,
      algorithms: ['HS256'],
      currentDate: now,
      requiredClaims: ['sub', 'exp', 'org', 'env'],
    });
    if (typeof payload.sub !== 'string' || typeof payload.org !== 'string') throw new PayLinkRejected('invalid', 'This link is not valid.');
    return { sub: payload.sub, org: payload.org, env: environment, v: payload.v, to: payload.to, lease: payload.lease, payer: payload.payer };
  } catch (error) {
    if (error instanceof PayLinkRejected) throw error;
    if (error instanceof errors.JWTExpired) {
      // jose checks the signature, the issuer and the audience before the time: an expired link is authentic.
      const { sub, org } = error.payload;
      const names = typeof sub === 'string' && isUuid(sub) && typeof org === 'string' && isUuid(org) ? { placementId: sub, orgId: org, environment: environment as Environment } : undefined;
      throw new PayLinkRejected('expired', 'This link has expired.', names);
    }
    throw new PayLinkRejected('invalid', 'This link is not valid.');
  }
}

/**
 * The time a link's expiry is judged at: for a sandbox link, the sandbox clock of the organisation
 * it names (read before the signature is checked: the check that follows refuses a forgery, and a
 * forged name only picks whose clock is read); for any other, the wall clock.
 */
async function linkTime(token: string): Promise<Date> {
  let org: unknown;
  try {
    const claims = decodeJwt(token);
    org = claims.env === 'sandbox' ? claims.org : undefined;
  } catch {
    return new Date();
  }
  return typeof org === 'string' && isUuid(org) ? nowOf({ orgId: org, environment: 'sandbox' }) : new Date();
}

export function signPayLink(link: PayLink, now = new Date()): Promise<string> {
  return sign(audience, link.placementId, { org: link.orgId, env: link.environment, lease: link.leaseId, payer: link.payer }, now);
}

/** Verifies a pay link (expiry on its organisation's sandbox clock, in sandbox) and returns what it may pay; throws PayLinkRejected. */
export async function readPayLink(token: string, now?: Date): Promise<PayLink> {
  const claims = await verify(audience, token, now);
  // A link issued before links named their lease carries none: it is treated as naming no lease.
  const leaseId = typeof claims.lease === 'string' ? claims.lease : null;
  // One issued before links named their payer was the carrier's (it went to the API caller only).
  if (claims.payer !== undefined && !(payers as readonly unknown[]).includes(claims.payer)) throw new PayLinkRejected('invalid', 'This link is not valid.');
  const payer = (claims.payer ?? 'carrier') as Payer;
  return { placementId: claims.sub, orgId: claims.org, environment: claims.env, leaseId, payer };
}

/** Refuses a pay link once its placement's contract version is not the one it was issued for. */
export function assertLinkLease(link: PayLink, currentLeaseId: string | null): void {
  if (link.leaseId !== currentLeaseId) {
    throw new PayLinkRejected('replaced', 'The lease this link was issued for was replaced by a new version.');
  }
}

/** A provider's payout-setup link (finish_setup_url): opening it starts the processor's onboarding. */
export function signSetupLink(orgId: string, environment: Environment, now = new Date()): Promise<string> {
  return sign('payout-setup', orgId, { org: orgId, env: environment }, now);
}

export async function readSetupLink(token: string, now?: Date): Promise<{ orgId: string; environment: Environment }> {
  const claims = await verify('payout-setup', token, now);
  return { orgId: claims.org, environment: claims.env };
}

/**
 * The household's link to a home sent to it (GET /household/<token>): the magic link that is its
 * login to that one home. It names the placement, the issue it belongs to (`v`: a re-send moves
 * the placement's household_link_at, and older links stop working) and a digest of the address it
 * was sent to (`to`: a household contact changed on the request makes it stop working too).
 */
export interface HouseholdLink {
  placementId: string;
  orgId: string;
  environment: Environment;
  /** household_link_at of the issue, in milliseconds. */
  issue: number;
  /** The digest of the household contact it was sent to. */
  sentTo: string;
}

export function signHouseholdLink(link: HouseholdLink, now = new Date()): Promise<string> {
  return sign('household', link.placementId, { org: link.orgId, env: link.environment, v: link.issue, to: link.sentTo }, now, config.householdLinkTtlSeconds());
}

export async function readHouseholdLink(token: string, now?: Date): Promise<HouseholdLink> {
  const claims = await verify('household', token, now);
  if (typeof claims.v !== 'number' || typeof claims.to !== 'string') throw new PayLinkRejected('invalid', 'This link is not valid.');
  return { placementId: claims.sub, orgId: claims.org, environment: claims.env, issue: claims.v, sentTo: claims.to };
}

/** The digest a household link carries of the address it went to (never the address itself). */
export async function contactDigest(email: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`household-contact:${email.trim().toLowerCase()}`));
  return Array.from(new Uint8Array(digest).slice(0, 12), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The household page's address for a link: <public base>/household/<token>. */
export function householdPageUrl(token: string): string {
  return `${publicBaseUrl()}/household/${token}`;
}

/** The pay page's address for a link: <public base>/pay/<token>. */
export function payPageUrl(token: string): string {
  return `${publicBaseUrl()}/pay/${token}`;
}
