import { placementJobs } from '../placements/jobs.ts';
import { issueRefund } from '../placements/commands/refunds.ts';
import { advanceStay } from '../placements/commands/booking.ts';
import { sourceNewRequests } from '../claims/sourcing.ts';
import type { JobRegistry } from './runner.ts';

// Every job kind the runner knows, with its handler. A module that needs durable work adds its
// definitions here.
export const jobRegistry: JobRegistry = [...placementJobs, issueRefund, advanceStay, sourceNewRequests] as JobRegistry;
