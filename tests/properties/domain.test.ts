import { describe, expect, it } from 'vitest';
import { eventsFor } from '../../shared/events/registry.ts';
import { splitCharge } from '../../shared/properties/earnings.ts';
import { fromCents, isWholeCents, toCents } from '../../shared/money.ts';
import { applyProcessorUpdate, type PayoutState } from '../../shared/properties/payouts.ts';

describe('money', () => {
  it('converts major units and cents without binary-fraction noise', () => {
    expect(toCents(19.99)).toBe(1999);
    expect(toCents(0.1 + 0.2)).toBe(30);
    expect(fromCents(245075)).toBe(2450.75);
    expect(isWholeCents(10.01)).toBe(true);
    expect(isWholeCents(10.005)).toBe(false);
  });
});

describe('splitCharge', () => {
  it('takes the platform fee from rent only and card processing from the whole charge', () => {
    expect(splitCharge({ rentCents: 300000, depositCents: 150000, feesCents: 45000 })).toEqual({
      grossCents: 495000, platformFeeCents: 24000, processingFeeCents: 14385, netCents: 456615,
    });
  });

  it('a deposit-only charge carries no platform fee', () => {
    expect(splitCharge({ rentCents: 0, depositCents: 100000 })).toMatchObject({ platformFeeCents: 0, processingFeeCents: 2930, netCents: 97070 });
  });

  it('rounds fees to the nearest cent and charges nothing on nothing', () => {
    expect(splitCharge({ rentCents: 12345 })).toEqual({ grossCents: 12345, platformFeeCents: 988, processingFeeCents: 388, netCents: 10969 });
    expect(splitCharge({ rentCents: 0 })).toEqual({ grossCents: 0, platformFeeCents: 0, processingFeeCents: 0, netCents: 0 });
  });

  it('refuses amounts that are not whole non-negative cents', () => {
    expect(() => splitCharge({ rentCents: -1 })).toThrow(RangeError);
    expect(() => splitCharge({ rentCents: 10.5 })).toThrow(RangeError);
  });
});

describe('applyProcessorUpdate', () => {
  const live: PayoutState = { connected: false, charges_enabled: false, payouts_enabled: false, onboarding_status: 'not_started', bank_account_last4: null };

  it('enabling charges and payouts connects the account and completes onboarding', () => {
    expect(applyProcessorUpdate(live, { charges_enabled: true, payouts_enabled: true })).toEqual({
      connected: true, charges_enabled: true, payouts_enabled: true, onboarding_status: 'complete', bank_account_last4: '6789',
    });
  });

  it('connecting alone leaves onboarding pending', () => {
    expect(applyProcessorUpdate(live, { connected: true })).toMatchObject({ connected: true, charges_enabled: false, onboarding_status: 'pending' });
  });

  it('disconnecting turns charges and payouts off and forgets the bank account', () => {
    const complete = applyProcessorUpdate(live, { charges_enabled: true, payouts_enabled: true });
    expect(applyProcessorUpdate(complete, { connected: false })).toEqual(live);
  });

  it('refuses disconnecting while enabling', () => {
    expect(() => applyProcessorUpdate(live, { connected: false, payouts_enabled: true })).toThrow(/payouts_enabled/);
  });
});

describe('provider events', () => {
  const events = eventsFor('provider');

  it('defines booking.confirmed, booking.updated, payment.succeeded, payment.failed, application.received, payment.refund_failed, calendar.conflict, calendar.feed_failing and refund.requested, all simulatable', () => {
    expect(events.map((e) => e.event).sort()).toEqual([
      'application.received', 'booking.confirmed', 'booking.updated', 'calendar.conflict', 'calendar.feed_failing', 'payment.failed', 'payment.refund_failed', 'payment.succeeded',
      'refund.requested',
    ]);
    expect(events.every((e) => e.simulatable && e.audience === 'provider')).toBe(true);
  });

  it('booking events carry reference and property, as the specification names booking.confirmed', () => {
    for (const definition of events.filter((e) => e.event.startsWith('booking.'))) {
      expect(definition.sample, definition.event).toMatchObject({ reference: expect.any(String), property: expect.any(Object) });
      const { reference: _, ...withoutReference } = definition.sample;
      expect(definition.payload.safeParse(withoutReference).success, definition.event).toBe(false);
    }
  });

  it('each sample satisfies its payload schema and carries external_id', () => {
    for (const definition of events) {
      expect(definition.payload.safeParse(definition.sample).success, definition.event).toBe(true);
      expect(definition.sample).toHaveProperty('external_id');
    }
  });

  it('the payment.succeeded sample follows the fee model', () => {
    const sample = events.find((e) => e.event === 'payment.succeeded')!.sample as Record<string, number>;
    const split = splitCharge({ rentCents: 300000, depositCents: 150000, feesCents: 45000 });
    expect([sample.gross, sample.platform_fee, sample.processing_fee, sample.net_to_you]).toEqual(
      [split.grossCents, split.platformFeeCents, split.processingFeeCents, split.netCents].map((c) => c / 100),
    );
  });
});
