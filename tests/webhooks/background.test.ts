// The local server's dispatcher: the same dispatcher on a timer every WEBHOOK_DISPATCH_INTERVAL_MS,
// which on stop claims nothing more and waits for what is in flight.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { client, createTenant, ownerSql } from '../helpers.ts';
import { definitionOf } from '../../shared/events/registry.ts';
import { startWebhookDispatch, type StopJob } from '../../scripts/lib/background.ts';
import { recordEvent, until, useReceiver } from './support.ts';

const receiver = useReceiver();
const sample = definitionOf('lease.sent', 'carrier')!.sample;
let orgId: string;
let path: string;
let paths = 0;
let stop: StopJob | undefined;

beforeEach(async () => {
  const tenant = await createTenant('carrier');
  orgId = tenant.orgId;
  path = `/timer-${++paths}`;
  expect((await client(tenant.live).post('/webhooks', { url: receiver.url(path), events: ['lease.sent'] })).status).toBe(201);
});

afterEach(async () => {
  await stop?.();
  stop = undefined;
  delete process.env.WEBHOOK_DISPATCH_INTERVAL_MS;
});

const statuses = async () =>
  (await ownerSql()<{ status: string }[]>`select status from app.webhook_deliveries where org_id = ${orgId}`).map((d) => d.status);

describe('the local dispatcher job', () => {
  it('delivers events recorded while it runs, and nothing once stopped', async () => {
    process.env.WEBHOOK_DISPATCH_INTERVAL_MS = '50';
    stop = startWebhookDispatch({ organisations: [orgId] });
    await recordEvent(orgId, 'live', 'lease.sent', sample);
    await until(() => receiver.at(path).length === 1);
    await recordEvent(orgId, 'live', 'lease.sent', sample);
    await until(() => receiver.at(path).length === 2);
    await until(async () => (await statuses()).every((status) => status === 'succeeded'));

    await stop();
    await recordEvent(orgId, 'live', 'lease.sent', sample);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.at(path)).toHaveLength(2);
    expect((await statuses()).sort()).toEqual(['pending', 'succeeded', 'succeeded']);
  });

  it('looks again only WEBHOOK_DISPATCH_INTERVAL_MS after a run', async () => {
    process.env.WEBHOOK_DISPATCH_INTERVAL_MS = '60000';
    stop = startWebhookDispatch({ organisations: [orgId] });
    // The first run, at start, finds nothing; the next is a minute away.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await recordEvent(orgId, 'live', 'lease.sent', sample);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.at(path)).toEqual([]);
    expect(await statuses()).toEqual(['pending']);
  });

  it('runs nothing when WEBHOOK_DISPATCH_INTERVAL_MS is off or 0 (pg_cron drives delivery)', async () => {
    for (const off of ['off', 'OFF', '0']) {
      process.env.WEBHOOK_DISPATCH_INTERVAL_MS = off;
      stop = startWebhookDispatch({ organisations: [orgId] });
      await recordEvent(orgId, 'live', 'lease.sent', sample);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await stop();
    }
    expect(receiver.at(path)).toEqual([]);
    expect(await statuses()).toEqual(['pending', 'pending', 'pending']);
  });

  it('refuses a period a timer cannot hold, rather than firing every millisecond', () => {
    process.env.WEBHOOK_DISPATCH_INTERVAL_MS = '2147483648';
    expect(() => startWebhookDispatch({ organisations: [orgId] })).toThrow(
      'Setting WEBHOOK_DISPATCH_INTERVAL_MS=2147483648 is beyond what a timer can wait (at most 2147483647 ms, about 24.8 days; longer would fire every millisecond): set at most 2147483647, or 0 or off to switch the timer off',
    );
    process.env.WEBHOOK_DISPATCH_INTERVAL_MS = '-5';
    expect(() => startWebhookDispatch({ organisations: [orgId] })).toThrow(/must be a number of milliseconds, or 0 or off/);
  });

  it('waits for the delivery in flight when stopped, and records it', async () => {
    process.env.WEBHOOK_DISPATCH_INTERVAL_MS = '50';
    receiver.answer(path, { status: 200, delayMs: 300 });
    stop = startWebhookDispatch({ organisations: [orgId] });
    await recordEvent(orgId, 'live', 'lease.sent', sample);
    await until(() => receiver.at(path).length === 1);
    expect(await statuses()).toEqual(['pending']);
    await stop();
    expect(await statuses()).toEqual(['succeeded']);
  });
});
