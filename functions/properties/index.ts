import { app } from './app.ts';
import { requirePublicBaseUrl } from '../../shared/http/public-url.ts';

// The addresses this function hands out need the public one: without it, it stops here, named.
requirePublicBaseUrl();

Deno.serve(app.fetch);
