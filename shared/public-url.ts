import { config } from './config.ts';

// Every address the service hands out (household, pay and payout-setup links, calendar feed
// addresses and their UIDs, the links in emails) starts from the one public address configured
// here, never from the request: a request's Host header is the sender's to choose, and a link built
// from it would send a household's working link, or a payer, to the sender's host.

/** The base path every function is served under (Supabase's functions gateway, and the local server). */
export const functionsPath = '/functions/v1';

/** The local server's own address when PUBLIC_BASE_URL is unset: the loopback port it listens on. */
export const localBaseUrl = () => `http://127.0.0.1:${config.port()}${functionsPath}`;

/** Why PUBLIC_BASE_URL cannot be used as the service's public address, or undefined when it can. */
export function publicBaseUrlProblem(value = config.publicBaseUrl()): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `PUBLIC_BASE_URL=${value} is not an address: set it to the service's public address ending in ${functionsPath} (https://<project>.supabase.co${functionsPath})`;
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password || url.search || url.hash) {
    return `PUBLIC_BASE_URL=${value} must be a plain http(s) address without user, query or fragment, ending in ${functionsPath}`;
  }
  return undefined;
}

/**
 * The service's public address, ending in /functions/v1: PUBLIC_BASE_URL, else the local server's
 * loopback address (the documented default for local and sandbox use). A deployment that serves the
 * public refuses to start without the setting (requirePublicBaseUrl, the server's start-up check).
 */
export function publicBaseUrl(): string {
  const configured = config.publicBaseUrl();
  return configured ? configured.replace(/\/+$/, '') : localBaseUrl();
}

/**
 * At an Edge function's start (Supabase serves the public, and its request addresses are the
 * gateway's, not the public's): stops the function, naming the setting, when PUBLIC_BASE_URL is
 * unset or unusable.
 */
export function requirePublicBaseUrl(): void {
  if (!config.publicBaseUrl()) {
    throw new Error(`PUBLIC_BASE_URL is not set: set it to the service's public address ending in ${functionsPath} (https://<project>.supabase.co${functionsPath}); links are never built from a request's Host`);
  }
  const problem = publicBaseUrlProblem();
  if (problem) throw new Error(problem);
}
