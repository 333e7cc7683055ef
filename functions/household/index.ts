import { app } from './app.ts';
import { reportLinkSecret } from '../../shared/placements/pay-link.ts';

// A deployment without PAY_LINK_SECRET (or with one too short) says so in its log at start.
reportLinkSecret();
Deno.serve(app.fetch);
