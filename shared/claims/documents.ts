// Which documents a request accepts, decided from the bytes themselves (a name or a declared
// Content-Type can say anything): PDF, common image formats and Word documents.

export interface DocumentType {
  contentType: string;
  extension: string;
}

const ascii = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
const utf16le = (text: string) => Uint8Array.from([...text].flatMap((c) => [c.charCodeAt(0), 0]));

function startsWith(bytes: Uint8Array, prefix: ArrayLike<number>, at = 0): boolean {
  if (bytes.length < at + prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[at + i] !== prefix[i]) return false;
  return true;
}

function contains(bytes: Uint8Array, needle: Uint8Array): boolean {
  outer: for (let i = 0; i + needle.length <= bytes.length; i++) {
    for (let j = 0; j < needle.length; j++) if (bytes[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

const oleCompoundFile = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const zipLocalHeader = [0x50, 0x4b, 0x03, 0x04];
const heifBrands = ['heic', 'heix', 'hevc', 'heim', 'heis', 'mif1', 'msf1'];

/** The accepted type of these bytes, or undefined when they are not a document the service takes. */
export function detectDocumentType(bytes: Uint8Array): DocumentType | undefined {
  if (startsWith(bytes, ascii('%PDF-'))) return { contentType: 'application/pdf', extension: 'pdf' };
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { contentType: 'image/png', extension: 'png' };
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return { contentType: 'image/jpeg', extension: 'jpg' };
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) return { contentType: 'image/gif', extension: 'gif' };
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return { contentType: 'image/webp', extension: 'webp' };
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a])) return { contentType: 'image/tiff', extension: 'tiff' };
  if (startsWith(bytes, ascii('ftyp'), 4) && heifBrands.some((brand) => startsWith(bytes, ascii(brand), 8))) {
    return { contentType: 'image/heic', extension: 'heic' };
  }
  // Word 97-2003: an OLE compound file holding a "WordDocument" stream (Excel and others hold other streams).
  if (startsWith(bytes, oleCompoundFile) && contains(bytes, utf16le('WordDocument'))) {
    return { contentType: 'application/msword', extension: 'doc' };
  }
  // Word 2007+: a ZIP package whose parts live under word/ (the names are stored uncompressed).
  if (startsWith(bytes, zipLocalHeader) && contains(bytes, ascii('word/'))) {
    return { contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', extension: 'docx' };
  }
  return undefined;
}

/** Accepted formats, as named in the API reference and in unsupported_type messages. */
export const acceptedFormats = 'PDF, PNG, JPEG, GIF, WebP, TIFF, HEIC, Word (.doc, .docx)';

/** The content types a filed document is stored and downloaded with: those the detection above answers. */
export const documentContentTypes = [
  'application/pdf', 'image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/tiff', 'image/heic',
  'application/msword', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
] as const;
