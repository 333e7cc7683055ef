import { z } from '@hono/zod-openapi';
import { statuses } from '../../request-values.ts';
import type { EventDefinition } from '../definition.ts';
import { sampleRequest } from './samples.ts';

// Events about housing requests themselves (carrier side).

// The request's own status values, so a receiver's types narrow on them as on the request's.
const status = z.enum(statuses).describe('A status_primary value, as the housing request has it.');

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
