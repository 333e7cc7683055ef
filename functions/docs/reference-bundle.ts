import { generated } from './reference-bundle.generated.ts';

/**
 * The reference page's script: the pinned npm package's self-contained browser build, embedded
 * (gzipped) in a generated module so it is part of the function's own code on every runtime. Its
 * address carries the version, so browsers may cache it for good.
 */
export const referenceBundle = {
  package: generated.package,
  version: generated.version,
  integrity: generated.integrity,
  file: generated.file,
  sha256: generated.sha256,
  /** The file name the docs function serves it under (`/docs/assets/<name>`). */
  name: `scalar-api-reference-${generated.version}.js`,
} as const;

let gzip: Uint8Array<ArrayBuffer> | undefined;

/** The bundle as gzip bytes (decoded once per process). */
export function gzippedBundle(): Uint8Array<ArrayBuffer> {
  if (!gzip) {
    const binary = atob(generated.gzipBase64);
    gzip = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) gzip[i] = binary.charCodeAt(i);
  }
  return gzip;
}

/** The bundle as published, for clients that do not accept gzip. */
export function bundleStream(): ReadableStream<Uint8Array> {
  return new Blob([gzippedBundle()]).stream().pipeThrough(new DecompressionStream('gzip'));
}
