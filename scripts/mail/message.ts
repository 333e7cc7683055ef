// Reads a received message (RFC 5322 with MIME) far enough for an inbox: its headers, decoded
// (RFC 2047), and its text and HTML bodies, whatever their transfer encoding (base64,
// quoted-printable, 7bit, 8bit). Attachments and nested multiparts beyond alternatives are not shown.

export interface ParsedMessage {
  from: string;
  to: string;
  subject: string;
  date: string | null;
  text: string | null;
  html: string | null;
}

interface Part {
  headers: Map<string, string>;
  body: string;
}

/** Splits headers from body; folded header lines are joined. Names are lower case. */
function split(raw: string): Part {
  const at = raw.indexOf('\r\n\r\n');
  const head = at < 0 ? raw : raw.slice(0, at);
  const body = at < 0 ? '' : raw.slice(at + 4);
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body };
}

const charsetOf = (type: string) => /charset="?([^";\s]+)"?/i.exec(type)?.[1] ?? 'utf-8';

function decodeBytes(bytes: Uint8Array, charset: string): string {
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

function quotedPrintable(text: string): Uint8Array {
  const joined = text.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < joined.length; i++) {
    const hex = joined.slice(i + 1, i + 3);
    if (joined[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else bytes.push(...new TextEncoder().encode(joined[i]));
  }
  return Uint8Array.from(bytes);
}

/** A header's encoded words (=?charset?B|Q?...?=) decoded. */
export function decodeHeader(value: string): string {
  return value.replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=(\s+(?==\?))?/g, (_, charset: string, encoding: string, text: string) =>
    decodeBytes(
      encoding.toUpperCase() === 'B' ? Buffer.from(text, 'base64') : quotedPrintable(text.replace(/_/g, ' ')),
      charset,
    ));
}

function bodyOf(part: Part): string {
  const type = part.headers.get('content-type') ?? 'text/plain';
  const encoding = (part.headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  if (encoding === 'base64') return decodeBytes(Buffer.from(part.body.replace(/\s+/g, ''), 'base64'), charsetOf(type));
  if (encoding === 'quoted-printable') return decodeBytes(quotedPrintable(part.body), charsetOf(type));
  return part.body;
}

/** The leaf parts of a message, multiparts opened. */
function leaves(part: Part): Part[] {
  const type = part.headers.get('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (!/^multipart\//i.test(type) || !boundary) return [part];
  const pieces = part.body.split(`--${boundary}`);
  // The preamble before the first boundary and everything after the closing one are not parts.
  // The line break before a boundary belongs to the boundary (RFC 2046), not to the part.
  return pieces.slice(1).filter((piece) => !piece.startsWith('--')).flatMap((piece) => leaves(split(piece.replace(/^\r\n/, '').replace(/\r\n$/, ''))));
}

export function parseMessage(raw: string): ParsedMessage {
  const message = split(raw);
  const parts = leaves(message);
  const find = (type: string) => {
    const found = parts.find((part) => (part.headers.get('content-type') ?? 'text/plain').toLowerCase().startsWith(type));
    return found ? bodyOf(found).replace(/\r\n/g, '\n') : null;
  };
  const header = (name: string) => decodeHeader(message.headers.get(name) ?? '');
  return { from: header('from'), to: header('to'), subject: header('subject'), date: message.headers.get('date') ?? null, text: find('text/plain'), html: find('text/html') };
}
