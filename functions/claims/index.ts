import { app } from './app.ts';
import { requireSupabaseDocumentStorage } from '../../shared/claims/storage.ts';

// No writable disk on the Edge Runtime: documents go to Supabase Storage, and a missing setting
// stops the function here, named, rather than failing every upload.
requireSupabaseDocumentStorage();

Deno.serve(app.fetch);
