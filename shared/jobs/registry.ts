import { placementJobs } from '../placements/jobs.ts';
import { issueRefund } from '../../functions/claims/placement/refunds.ts';
import { advanceStay } from '../../functions/claims/placement/booking.ts';
import type { JobRegistry } from './runner.ts';

// Every job kind the runner knows, with its handler. A module that needs durable work adds its
// definitions here (sourcing and payments will).
export const jobRegistry: JobRegistry = [...placementJobs, issueRefund, advanceStay] as JobRegistry;
