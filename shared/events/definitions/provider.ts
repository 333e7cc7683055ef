import type { EventDefinition } from '../registry.ts';

// Events for housing providers (bookings and money reaching their account).

export const providerEvents: EventDefinition[] = [];
