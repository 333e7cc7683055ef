import { placementJobs } from '../placements/jobs.ts';
import type { JobRegistry } from './runner.ts';

// Every job kind the runner knows, with its handler. A module that needs durable work adds its
// definitions here (sourcing and payments will).
export const jobRegistry: JobRegistry = [...placementJobs] as JobRegistry;
