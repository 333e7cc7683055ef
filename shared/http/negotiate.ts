// Content negotiation for the few routes that answer in more than one media type (the statement:
// JSON, or CSV for a claim file). JSON is the API's answer: a request without Accept, with */*,
// with application/json, or naming only types a route does not offer gets JSON, as every other
// route answers whatever Accept says (the API answers no 406). Another offered type is chosen only
// when Accept prefers it to JSON.

/** A media range of an Accept header and its weight. */
interface Range {
  type: string;
  subtype: string;
  q: number;
}

function rangesOf(accept: string): Range[] {
  return accept.split(',').flatMap((part) => {
    const [media, ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    const [type, subtype] = media.split('/');
    if (!type || !subtype) return [];
    const q = params.map((p) => /^q=([0-9.]+)$/.exec(p)).find(Boolean);
    const weight = q ? Number(q[1]) : 1;
    return Number.isFinite(weight) ? [{ type, subtype, q: Math.min(1, Math.max(0, weight)) }] : [];
  });
}

/** The weight Accept gives a media type: that of the most specific range matching it (RFC 9110 12.5.1), 0 when none does. */
function weightOf(ranges: Range[], mediaType: string): number {
  const [type, subtype] = mediaType.split('/');
  const matching = ranges
    .filter((r) => (r.type === '*' || r.type === type) && (r.subtype === '*' || r.subtype === subtype))
    .sort((a, b) => Number(b.type !== '*') + Number(b.subtype !== '*') - (Number(a.type !== '*') + Number(a.subtype !== '*')));
  return matching[0]?.q ?? 0;
}

/**
 * Which of `offered` to answer in: the one Accept weighs highest, the first offered (JSON) on a tie,
 * without Accept, or when Accept weighs none of them above 0.
 */
export function negotiate<T extends string>(accept: string | undefined, offered: readonly [T, ...T[]]): T {
  if (!accept?.trim()) return offered[0];
  const ranges = rangesOf(accept);
  let best = offered[0];
  let bestWeight = weightOf(ranges, best);
  for (const type of offered.slice(1)) {
    const weight = weightOf(ranges, type);
    if (weight > bestWeight) [best, bestWeight] = [type, weight];
  }
  return best;
}
