import type { EventDefinition } from '../registry.ts';

// Events of the placement lifecycle as the carrier sees them (options, dates, lease, payment,
// booking). Their payloads are defined with the events and webhooks work.

export const placementEvents: EventDefinition[] = [];
