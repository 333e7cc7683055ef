import { z } from '@hono/zod-openapi';
import type { EventDefinition } from '../registry.ts';

// Events about housing requests themselves (carrier side).

export const requestEvents: EventDefinition[] = [
  {
    event: 'request.status_changed',
    audience: 'carrier',
    summary: 'A housing request moved through its lifecycle.',
    simulatable: true,
    payload: z.object({
      request_id: z.string().uuid(),
      reference: z.string(),
      external_id: z.string().nullable(),
      status: z.string(),
      previous_status: z.string().nullable(),
    }),
    sample: {
      request_id: '0b9f6a4e-5f55-4a43-9d1c-3c2f1d9a7e10',
      reference: 'REQ-7KQ2MX',
      external_id: 'CLM-1001',
      status: 'housing_options_found',
      previous_status: 'housing_needs_collected',
    },
  },
];
