// JSON.parse keeps the last of two members with the same name, so `{"amount":1,"amount":100}` would
// be read as 100 while a log, a proxy or the caller's own check may have read 1. The API refuses such
// a body instead, as a strict parser would (RFC 8259: names within an object should be unique).
// One pass over the text, before it is parsed: structure characters are looked at one by one and
// every string is skipped to its closing quote with indexOf, so a body of long strings costs little.

const quote = 0x22;
const backslash = 0x5c;

/** Where a string starting at `open` (its opening quote) closes: the index of the closing quote, or -1. */
function closingQuote(text: string, open: number): number {
  let at = text.indexOf('"', open + 1);
  while (at !== -1) {
    // A quote ends the string unless an odd number of backslashes escapes it.
    let escapes = 0;
    while (text.charCodeAt(at - 1 - escapes) === backslash) escapes++;
    if (escapes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return -1;
}

/** The key a string between `open` and `end` (its quotes) reads as; undefined when its escapes are not JSON's. */
function keyAt(text: string, open: number, end: number): string | undefined {
  const raw = text.slice(open + 1, end);
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(text.slice(open, end + 1)) as string;
  } catch {
    return undefined;
  }
}

/**
 * The dot path (`requests.3.loss_zip`, as invalid_field names fields) of the first key named twice
 * in one object of a JSON text, or undefined when there is none. Keys are compared as JSON reads
 * them (`"url"` and `"\u0075rl"` are one key). Text that is not valid JSON gives an answer that means
 * nothing: the caller refuses it as malformed anyway.
 */
export function duplicateKey(text: string): string | undefined {
  // One entry per open object or array: the keys seen (objects) and the member or index being read.
  const keys: (Set<string> | undefined)[] = [];
  const members: (string | number)[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === quote) {
      const end = closingQuote(text, i);
      if (end === -1) return undefined;
      if (expectKey) {
        const key = keyAt(text, i, end);
        if (key === undefined) return undefined;
        const seen = keys[keys.length - 1]!;
        if (seen.has(key)) return [...members.slice(0, -1), key].join('.');
        seen.add(key);
        members[members.length - 1] = key;
        expectKey = false;
      }
      i = end;
    } else if (ch === 0x7b /* { */) {
      keys.push(new Set());
      members.push('');
      expectKey = true;
    } else if (ch === 0x5b /* [ */) {
      keys.push(undefined);
      members.push(0);
    } else if (ch === 0x7d /* } */ || ch === 0x5d /* ] */) {
      keys.pop();
      members.pop();
      expectKey = false;
    } else if (ch === 0x2c /* , */ && keys.length > 0) {
      if (keys[keys.length - 1]) expectKey = true;
      else members[members.length - 1] = (members[members.length - 1] as number) + 1;
    }
  }
  return undefined;
}
