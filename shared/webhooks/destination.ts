import { lookup } from 'node:dns/promises';
import { log } from '../log.ts';

// Where a webhook may be sent. Endpoints are refused when their host is, or resolves to, a
// loopback, private, link-local, shared (CGNAT), multicast, reserved or cloud-metadata address, so
// that an endpoint cannot be used to reach the service's own network. The check runs when an
// endpoint is saved (address literals and localhost names) and again before every attempt (full
// resolution), because DNS can change after an endpoint was accepted.

/** Resolves a host name to its addresses: the DNS port, replaceable in tests. */
export type HostResolver = (hostname: string) => Promise<string[]>;

/** Resolution through the runtime's resolver (Deno and Node both provide node:dns). */
export const systemResolver: HostResolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

// IPv4 ranges as [first octets, prefix length].
const blockedV4: Array<[number[], number]> = [
  [[0], 8], // "this network"
  [[10], 8], // private
  [[100, 64], 10], // shared address space (carrier-grade NAT; also Alibaba's metadata 100.100.100.200)
  [[127], 8], // loopback
  [[169, 254], 16], // link-local, including the metadata service 169.254.169.254
  [[172, 16], 12], // private
  [[192, 0, 0], 24], // IETF protocol assignments
  [[192, 0, 2], 24], // documentation
  [[192, 88, 99], 24], // 6to4 relay anycast
  [[192, 168], 16], // private
  [[198, 18], 15], // benchmarking
  [[198, 51, 100], 24], // documentation
  [[203, 0, 113], 24], // documentation
  [[224], 4], // multicast
  [[240], 4], // reserved, and broadcast
  [[168, 63, 129, 16], 32], // Azure's platform metadata service (a public address)
];

function parseV4(address: string): number | undefined {
  const parts = address.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined;
  return parts.reduce((value, part) => value * 256 + Number(part), 0);
}

function v4Blocked(value: number): boolean {
  return blockedV4.some(([octets, prefix]) => {
    const base = [...octets, 0, 0, 0, 0].slice(0, 4).reduce((v, o) => v * 256 + o, 0);
    const size = 2 ** (32 - prefix);
    return value >= base && value < base + size;
  });
}

/** The 8 groups of an IPv6 address, or undefined when it is not one. */
function parseV6(address: string): number[] | undefined {
  let text = address.toLowerCase().replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  // A trailing dotted IPv4 part (::ffff:10.0.0.1) becomes two groups.
  const dotted = text.match(/^(.*:)(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) {
    const v4 = parseV4(dotted[2]);
    if (v4 === undefined) return undefined;
    text = `${dotted[1]}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  const missing = 8 - head.length - tail.length;
  if ((halves.length === 1 && missing !== 0) || missing < 0) return undefined;
  const all = [...head, ...Array(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (all.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return undefined;
  return all.map((g) => parseInt(g, 16));
}

function v6Blocked(g: number[]): boolean {
  const embeddedV4 = (hi: number, lo: number) => v4Blocked(hi * 65536 + lo);
  if (g.every((x) => x === 0)) return true; // unspecified
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return true; // loopback
  if (g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0)) return embeddedV4(g[6], g[7]); // mapped / compatible
  if (g.slice(0, 4).every((x) => x === 0) && g[4] === 0xffff && g[5] === 0) return embeddedV4(g[6], g[7]); // IPv4-translated (SIIT)
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return true; // NAT64 local-use prefix: translates to whatever its operator routes
  if (g[0] === 0x64 && g[1] === 0xff9b) return embeddedV4(g[6], g[7]); // NAT64
  // IETF protocol assignments 2001::/23: Teredo (2001::/32, tunnels to an obfuscated IPv4 address),
  // benchmarking, ORCHID; none is a webhook receiver.
  if (g[0] === 0x2001 && g[1] < 0x200) return true;
  if (g[0] === 0x100 && g.slice(1, 4).every((x) => x === 0)) return true; // discard-only
  if (g[0] === 0x2002) return embeddedV4(g[1], g[2]); // 6to4
  if ((g[0] & 0xfe00) === 0xfc00) return true; // unique local, including AWS's metadata fd00:ec2::254
  if ((g[0] & 0xffc0) === 0xfe80) return true; // link-local
  if ((g[0] & 0xff00) === 0xff00) return true; // multicast
  if (g[0] === 0x2001 && g[1] === 0x0db8) return true; // documentation
  return false;
}

/** Whether an IP address literal is one that webhooks must not reach. Non-addresses are false. */
export function isBlockedAddress(address: string): boolean {
  const v4 = parseV4(address);
  if (v4 !== undefined) return v4Blocked(v4);
  const v6 = parseV6(address);
  return v6 !== undefined && v6Blocked(v6);
}

const isAddressLiteral = (host: string) => parseV4(host) !== undefined || parseV6(host) !== undefined;

/** URL.hostname without the brackets of an IPv6 literal. */
const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

const localNames = /(^|\.)(localhost|localdomain|internal|local)$/i;

/** The longest endpoint URL, as stored (normalized). */
export const maxEndpointUrlLength = 2048;

type EndpointUrlCheck = { ok: true; url: string } | { ok: false; reason: string };

/**
 * What the refusal of an http or a local address adds, by what the address is for: the setting that
 * lifts the refusal on a local server, and, for webhooks, the console's forwarder, which takes events
 * to a plain http address on the developer's machine with no certificate and no restart.
 */
export const localDevelopmentHints = {
  webhook:
    'Locally, WEBHOOK_ALLOW_PRIVATE_NETWORKS=true (a server setting) admits loopback and private https addresses; ' +
    'for a receiver on plain http (http://localhost:3000/hook) use the console\'s forwarder instead of an endpoint: ' +
    'npm run --silent admin -- listen --org ORG_ID --forward-to http://localhost:3000/hook (it prints the signing secret with --print-secret).',
  calendar:
    'Locally, WEBHOOK_ALLOW_PRIVATE_NETWORKS=true (a server setting calendar imports share with webhooks) admits loopback and private https addresses; ' +
    'a feed is always fetched over https (a local test certificate is trusted through NODE_EXTRA_CA_CERTS).',
} as const;

/**
 * Judges a URL given for an endpoint from the URL alone (names are resolved only at delivery time).
 * An acceptable one comes back normalized (WHATWG URL: scheme and host lower-cased, default port
 * dropped, path percent-encoded): the address every delivery is POSTed to, stored and shown as such.
 * `use` picks what a refusal of http or of a local address says about local development.
 */
export function checkEndpointUrl(raw: string, allowPrivate: boolean, use: keyof typeof localDevelopmentHints = 'webhook'): EndpointUrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'url is not a valid URL.' };
  }
  if (url.protocol !== 'https:') return { ok: false, reason: `url must use https. ${localDevelopmentHints[use]}` };
  if (url.username || url.password) return { ok: false, reason: 'url must not contain credentials.' };
  if (url.hash) return { ok: false, reason: 'url must not contain a fragment.' };
  if (url.href.length > maxEndpointUrlLength) {
    return { ok: false, reason: `url must be at most ${maxEndpointUrlLength} characters once normalized (${url.href.length}).` };
  }
  const host = hostOf(url);
  if (!allowPrivate && (isAddressLiteral(host) ? isBlockedAddress(host) : localNames.test(host.replace(/\.$/, '')))) {
    return { ok: false, reason: `url must be reachable on the public internet, not a loopback, private or link-local address. ${localDevelopmentHints[use]}` };
  }
  return { ok: true, url: url.href };
}

/** The refusal of a destination that resolves to an address webhooks must not reach. */
export class DestinationRefused extends Error {
  constructor(host: string) {
    super(`refused: ${host} does not resolve only to public internet addresses (loopback, private, link-local or metadata addresses are never called)`);
    this.name = 'DestinationRefused';
  }
}

/**
 * The addresses a connection may use for `host`, as a transport that connects to them itself checks
 * them: throws DestinationRefused when any is one webhooks must not reach (unless private networks
 * are allowed), and an error when there is none.
 */
export function connectableAddresses<T extends string | { address: string }>(host: string, addresses: T[], allowPrivate: boolean): T[] {
  if (addresses.length === 0) throw Object.assign(new Error(`could not resolve ${host}`), { code: 'ENOTFOUND' });
  if (!allowPrivate && addresses.some((entry) => isBlockedAddress(typeof entry === 'string' ? entry : entry.address))) throw new DestinationRefused(host);
  return addresses;
}

/**
 * Checks, just before an attempt, that the URL's host resolves only to public addresses.
 * Returns the reason for refusing, or undefined. Results are memoised by the caller's `cache`
 * for the length of one dispatch run.
 */
export async function refusedDestination(
  url: URL,
  resolve: HostResolver,
  cache: Map<string, Promise<string[]>>,
): Promise<string | undefined> {
  const host = hostOf(url);
  let addresses: string[];
  if (isAddressLiteral(host)) {
    addresses = [host];
  } else {
    let pending = cache.get(host);
    if (!pending) {
      pending = resolve(host);
      cache.set(host, pending);
    }
    try {
      addresses = await pending;
    } catch (error) {
      // The resolver's own words (which resolver, which network) stay in the log.
      log.warn('webhook destination did not resolve', { host, error: error instanceof Error ? error.message : String(error) });
      return `could not resolve ${host}`;
    }
  }
  // The address is not named: the endpoint's owner learns that the name is refused, never what the
  // service's resolver sees inside its network.
  const blocked = addresses.find(isBlockedAddress);
  if (blocked) {
    log.warn('webhook destination refused', { host, address: blocked });
    return new DestinationRefused(host).message;
  }
  if (addresses.length === 0) return `could not resolve ${host}`;
  return undefined;
}
