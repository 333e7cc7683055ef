import { z } from '@hono/zod-openapi';

import { weights } from './scoring.ts';

// The schemas of the claims modules that live in shared/: the path parameter that names a housing
// request (every route under /claims/{reference}, the claims function's and the placement
// module's) and sourcing's answers (matching and sourcing rounds).

export const ReferenceParam = z.object({
  reference: z.string().openapi({ param: { name: 'reference', in: 'path' }, example: 'REQ-7KQ2MX', description: 'claim_ref or id' }),
});

export const Match = z
  .object({
    property_id: z.string().uuid(),
    name: z.string().nullable(),
    city: z.string(),
    state: z.string(),
    zip_code: z.string(),
    monthly_rate: z.number().describe('Headline monthly rate, major units.'),
    currency: z.string(),
    distance_miles: z.number().describe('Great-circle distance from the loss, miles (one decimal).'),
    score: z.number().describe('0 to 100, the sum of score_parts.'),
    score_parts: z.object(Object.fromEntries(Object.keys(weights).map((k) => [k, z.number()])) as Record<keyof typeof weights, z.ZodNumber>),
  })
  .openapi('Match');

export const MatchQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20).describe('How many homes, best first (up to 100, default 20).'),
});

export const SourcingRound = z
  .object({
    id: z.string().uuid(),
    request_id: z.string().uuid(),
    reference: z.string(),
    coordinator: z.string().describe('Who sources for the request.'),
    matches_found: z.number().int().describe('Homes matching now (counted up to 200).'),
    crawl: z.object({
      postcode: z.string(),
      status: z.enum(['sent', 'recorded', 'not_configured', 'failed']).describe('sent: the crawler accepted it; recorded: sandbox, nobody contacted; not_configured: no crawler is set up for this deployment; failed: the crawler did not accept it (the round stands, the coordinator sees it).'),
    }),
    created_at: z.string(),
  })
  .openapi('SourcingRound');

