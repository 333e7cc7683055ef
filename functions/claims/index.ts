import { app } from './app.ts';
import { requireSupabaseDocumentStorage } from '../../shared/claims/storage.ts';
import { requirePublicBaseUrl } from '../../shared/http/public-url.ts';

// The addresses this function hands out need the public one: without it, it stops here, named.
requirePublicBaseUrl();

// No writable disk on the Edge Runtime: documents go to Supabase Storage, and a missing setting
// stops the function here, named, rather than failing every upload.
requireSupabaseDocumentStorage();

Deno.serve(app.fetch);
