import { app } from './app.ts';
import { reportLinkSecret } from '../../shared/placements/pay-link.ts';
import { requirePublicBaseUrl } from '../../shared/http/public-url.ts';

// The addresses this function hands out need the public one: without it, it stops here, named.
requirePublicBaseUrl();

// A deployment without PAY_LINK_SECRET (or with one too short) says so in its log at start.
reportLinkSecret();
Deno.serve(app.fetch);
