// The webhooks group's rows as its repository reads them and its schemas render them: endpoints
// and deliveries, with the value sets of a delivery's status and an attempt's outcome.

export const deliveryStatuses = ['pending', 'succeeded', 'abandoned', 'cancelled'] as const;
export const attemptOutcomes = ['succeeded', 'failed', 'interrupted'] as const;

export interface EndpointRow {
  id: string;
  url: string;
  events: string[] | null;
  description: string | null;
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
  secret_rotated_at: Date | null;
  /** The keyset position of the row (see keysetPage). */
  position: string;
}

export interface EndpointInput {
  url: string;
  events: string[] | null;
  description: string | null;
}

export type EndpointChanges = Partial<EndpointInput & { is_active: boolean }>;

/** One attempt of a delivery, as the dispatcher records it in the delivery's history (jsonb). */
export interface AttemptRow {
  attempt: number;
  at: string;
  outcome: (typeof attemptOutcomes)[number];
  http_status: number | null;
  response_body: string | null;
  error: string | null;
  duration_ms: number | null;
}

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string | null;
  event: string;
  replay: boolean;
  status: (typeof deliveryStatuses)[number];
  attempts: number;
  next_attempt_at: Date | null;
  created_at: Date;
  completed_at: Date | null;
  history: AttemptRow[];
  position: string;
}
