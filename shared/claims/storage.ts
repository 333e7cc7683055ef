import { setting } from '../config.ts';

// Document storage port: where the bytes of request documents live. Supabase Storage when deployed
// (a private bucket, reached with the service-role key the Edge Runtime provides), a folder under
// DATA_DIR locally. Keys are `<org>/<environment>/<request>/<document>`: ids only.

export interface DocumentStorage {
  readonly kind: 'local' | 'supabase';
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** The stored bytes, or undefined when nothing is stored under the key. */
  get(key: string): Promise<Uint8Array<ArrayBuffer> | undefined>;
}

/** Files under `root`. node:fs is loaded on first use (Node and Deno both provide it), never on import. */
export function localFolderStorage(root: string): DocumentStorage {
  const fileOf = (key: string) => `${root.replace(/\/+$/, '')}/${key}`;
  return {
    kind: 'local',
    async put(key, bytes) {
      const fs = await import('node:fs/promises');
      const file = fileOf(key);
      await fs.mkdir(file.slice(0, file.lastIndexOf('/')), { recursive: true });
      // Written aside and renamed: a reader never sees half a document.
      await fs.writeFile(`${file}.part`, bytes);
      await fs.rename(`${file}.part`, file);
    },
    async get(key) {
      const fs = await import('node:fs/promises');
      try {
        return new Uint8Array(await fs.readFile(fileOf(key)));
      } catch (error) {
        if ((error as { code?: string }).code === 'ENOENT') return undefined;
        throw error;
      }
    },
  };
}

export interface SupabaseStorageOptions {
  url: string;
  serviceRoleKey: string;
  bucket: string;
  fetch?: typeof fetch;
}

/**
 * Document storage never opens a realtime channel. supabase-js looks for a WebSocket when the client
 * is made, which Node 20 lacks; this stand-in satisfies it and refuses any use.
 */
class NoRealtime {
  constructor() {
    throw new Error('document storage does not use realtime');
  }
}

/** A private Supabase Storage bucket, created on first upload when it does not exist yet. */
export function supabaseStorage(options: SupabaseStorageOptions): DocumentStorage {
  // Loaded on first use: local runs never load the SDK.
  const connect = import('@supabase/supabase-js').then(({ createClient }) => createClient(options.url, options.serviceRoleKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: NoRealtime as never },
    global: options.fetch ? { fetch: options.fetch } : {},
  }));
  const bucket = async () => (await connect).storage.from(options.bucket);
  const upload = async (key: string, bytes: Uint8Array, contentType: string) =>
    (await bucket()).upload(key, bytes, { contentType, upsert: false });
  return {
    kind: 'supabase',
    async put(key, bytes, contentType) {
      let { error } = await upload(key, bytes, contentType);
      if (error && /bucket not found/i.test(error.message)) {
        const created = await (await connect).storage.createBucket(options.bucket, { public: false });
        if (created.error && !/already exists/i.test(created.error.message)) throw created.error;
        ({ error } = await upload(key, bytes, contentType));
      }
      if (error) throw error;
    },
    async get(key) {
      const { data, error } = await (await bucket()).download(key);
      if (error) {
        if (/not found/i.test(error.message)) return undefined;
        throw error;
      }
      return new Uint8Array(await data.arrayBuffer());
    },
  };
}

/**
 * Called by the claims function's Edge entry point before it serves: on the Edge Runtime there is no
 * writable disk, so documents go to Supabase Storage only. A missing or contrary setting stops the
 * function at start-up with a message naming it, instead of failing each upload with a 500.
 */
export function requireSupabaseDocumentStorage(): void {
  const missing = ['SUPABASE_URL', 'SUPABASE_SERVICE_ROLE_KEY'].filter((name) => setting(name, '') === '');
  if (missing.length > 0) {
    throw new Error(`Document storage on the Edge Runtime is Supabase Storage, which needs ${missing.join(' and ')} (Supabase sets both for every function)`);
  }
  const choice = setting('DOCUMENT_STORAGE', 'supabase');
  if (choice !== 'supabase') {
    throw new Error(`DOCUMENT_STORAGE=${choice} is not available on the Edge Runtime (no writable disk); unset it or set it to supabase`);
  }
}

/**
 * The storage of this deployment: DOCUMENT_STORAGE (`local` or `supabase`) when set, otherwise
 * Supabase Storage when SUPABASE_URL and SUPABASE_SERVICE_ROLE_KEY are present (always the case on
 * Supabase Edge Functions), otherwise the local folder `${DATA_DIR}/documents`.
 */
export function documentStorage(): DocumentStorage {
  const url = setting('SUPABASE_URL', '');
  const serviceRoleKey = setting('SUPABASE_SERVICE_ROLE_KEY', '');
  const choice = setting('DOCUMENT_STORAGE', url && serviceRoleKey ? 'supabase' : 'local');
  if (choice === 'supabase') {
    if (!url || !serviceRoleKey) throw new Error('DOCUMENT_STORAGE=supabase needs SUPABASE_URL and SUPABASE_SERVICE_ROLE_KEY');
    return supabaseStorage({ url, serviceRoleKey, bucket: setting('DOCUMENTS_BUCKET', 'claim-documents') });
  }
  if (choice !== 'local') throw new Error(`DOCUMENT_STORAGE must be local or supabase, not ${choice}`);
  return localFolderStorage(`${setting('DATA_DIR', '.data')}/documents`);
}
