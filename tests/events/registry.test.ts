// The registry is the one definition of every event: names and audiences as the specification
// lists them, samples that satisfy their own payload schemas, and the OpenAPI webhooks section.
import { describe, expect, it } from 'vitest';
import { eventDefinitions, eventsFor, openApiWebhooks, payloadIssues } from '../../shared/events/registry.ts';

describe('event registry', () => {
  it('defines each event of the specification for its audience, simulatable as listed', () => {
    const simulatable = [
      'request.status_changed', 'option.declined', 'option.saved', 'dates.proposed', 'lease.sent', 'lease.first_signed',
      'lease.signed', 'payment.succeeded', 'payment.failed', 'booking.confirmed', 'booking.updated',
      // This service's additions, simulatable like the specification's booking events.
      'booking.dates_changed', 'application.received', 'payment.duplicate', 'payment.refund_failed', 'household_link.undelivered', 'calendar.conflict', 'calendar.feed_failing',
      'refund.requested',
    ];
    expect(eventsFor('provider').map((d) => d.event).sort()).toEqual([
      'application.received', 'booking.confirmed', 'booking.updated', 'calendar.conflict', 'calendar.feed_failing', 'payment.failed',
      'payment.refund_failed', 'payment.succeeded', 'refund.requested',
    ]);
    expect(eventsFor('carrier').map((d) => d.event)).toContain('payment.refunded');
    for (const definition of eventDefinitions) {
      expect([definition.event, definition.simulatable]).toEqual([definition.event, simulatable.includes(definition.event)]);
    }
    const pairs = eventDefinitions.map((d) => `${d.event}/${d.audience}`);
    expect(new Set(pairs).size).toBe(pairs.length);
  });

  it.each(eventDefinitions.map((d) => [`${d.event} (${d.audience})`, d] as const))('%s: the sample satisfies the payload and carries external_id', (_, definition) => {
    expect(payloadIssues(definition.event, definition.audience, definition.sample)).toEqual([]);
    expect(definition.sample).toHaveProperty('external_id');
    // Obviously fictional, never the guides' examples: a sample cannot pass for a real request's event.
    expect(definition.sample.external_id).toMatch(/^SIM-/);
    if ('reference' in definition.sample) expect(definition.sample.reference).toMatch(/^SIM-/);
  });

  it('reports payloads that drift from their definition', () => {
    expect(payloadIssues('lease.sent', 'carrier', { reference: 1 })).not.toEqual([]);
    expect(payloadIssues('booking.updated', 'carrier', {})).toEqual(['booking.updated is not an event for carriers']);
  });

  it('documents every event and the ping in the OpenAPI webhooks section', () => {
    const webhooks = openApiWebhooks();
    expect(Object.keys(webhooks)).toHaveLength(eventDefinitions.length + 1);
    expect(webhooks).toHaveProperty(['lease.signed (carrier)', 'post', 'requestBody']);
    expect(webhooks).toHaveProperty(['ping', 'post']);
  });
});
