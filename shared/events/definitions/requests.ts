import { z } from '@hono/zod-openapi';
import { statuses } from '../../claims/status.ts';
import type { EventDefinition } from '../definition.ts';
import { sampleRequest } from './samples.ts';

// Events about housing requests themselves (carrier side).

// The values are named for receivers; the schema stays a string because the foundation's test
// probe carries free text in `status` through the strict payload check.
const status = z.string().describe(`A status_primary value: ${statuses.join(', ')}.`);

export const requestEvents = [
  {
    event: 'request.status_changed',
    audience: 'carrier',
    summary: 'A housing request moved through its lifecycle.',
    simulatable: true,
    payload: z.object({
      request_id: z.string().uuid(),
      reference: z.string().describe('The claim_ref (REQ-XXXXXX).'),
      external_id: z.string().nullable().describe('The external_id given at creation, or null.'),
      status: status,
      previous_status: status.nullable().describe('The status the request left; null when it was just opened.'),
    }),
    sample: {
      ...sampleRequest,
      status: 'housing_options_found',
      previous_status: 'housing_needs_collected',
    },
  },
] as const satisfies readonly EventDefinition[];
