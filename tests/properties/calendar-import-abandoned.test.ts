// A calendar fetch whose job runs out of attempts (its result could not be recorded) shows the
// failure on the feed and queues the next scheduled fetch: the schedule never silently stops.
import { describe, expect, it, vi } from 'vitest';
import { client, createKey, ownerSql } from '../helpers.ts';
import { drainJobs, inDays, scene } from '../placements/fixtures.ts';
import { useReceiver } from '../webhooks/support.ts';

// The run's writes fail (the database is unavailable): both its success and its failure record
// throw once; the abandoned hook's own write then goes through.
vi.mock('../../shared/properties/calendar-import-repository.ts', async (original) => {
  const real = await original<typeof import('../../shared/properties/calendar-import-repository.ts')>();
  const down = new Error('the database is unavailable');
  return {
    ...real,
    recordSuccess: vi.fn().mockRejectedValue(down),
    recordFailure: vi.fn(real.recordFailure).mockRejectedValueOnce(down),
  };
});

const receiver = useReceiver();

describe('an abandoned calendar fetch', () => {
  it('shows its failure on the feed and queues the next scheduled fetch', async () => {
    const s = await scene('sandbox', { home: { environment: 'sandbox' } });
    const provider = client((await createKey(s.providerOrg, 'sandbox')).key);
    const path = `/abandoned-${crypto.randomUUID()}.ics`;
    receiver.answer(path, { body: ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//T//EN', 'BEGIN:VEVENT', 'UID:x', `DTSTART;VALUE=DATE:${inDays(5).replaceAll('-', '')}`, 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n') });
    const registered = await provider.post(`/properties/${s.home}/calendar-feeds`, { url: receiver.url(path) });
    expect(registered.status).toBe(201);
    await ownerSql()`update app.jobs set max_attempts = 1 where org_id = ${s.providerOrg} and kind = 'fetch_calendar_import'`;
    await drainJobs(s.providerOrg);
    const jobs = await ownerSql()<{ status: string; run_at: Date }[]>`
      select status, run_at from app.jobs where org_id = ${s.providerOrg} and kind = 'fetch_calendar_import' order by created_at`;
    expect(jobs.map((j) => j.status)).toEqual(['abandoned', 'pending']);
    expect(jobs[1].run_at.getTime()).toBeGreaterThan(Date.now());
    const [feed] = (await provider.get(`/properties/${s.home}/calendar-feeds`)).body.data;
    expect(feed).toMatchObject({ consecutive_failures: 1, last_error: expect.stringMatching(/could not be recorded after 1 attempts/) });
  });
});
