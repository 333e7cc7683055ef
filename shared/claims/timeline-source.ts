import type { Tx } from '../db/client.ts';
import type { ClaimRow } from './repository.ts';

// What a module contributes to a request's timeline (GET /claims/{reference}/timeline): its entries,
// read from the timestamps its own records carry, and the summary of each entry type. The claims
// function assembles the sources (functions/claims/timeline.ts); each source lives beside the
// repository of the rows it reads.

export interface TimelineRow {
  at: Date;
  type: string;
  property_id: string | null;
  detail: Record<string, unknown>;
}

export interface TimelineSource {
  summaries: Record<string, (detail: Record<string, unknown>) => string>;
  entries(tx: Tx, claim: ClaimRow): Promise<TimelineRow[]>;
}
