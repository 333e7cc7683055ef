// A signed link is its holder's only credential: the request log never writes it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loggablePath } from '../../shared/http/middleware/request-id.ts';
import { call } from '../helpers.ts';

describe('the request log', () => {
  afterEach(() => vi.restoreAllMocks());

  it('writes the pay, household and setup pages without their link', async () => {
    const token = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLW9mLWxpbms';
    for (const path of [`/pay/${token}`, `/pay/setup/${token}`, `/household/${token}`, `/household/${token}/lease`, `/household/${token}/pay`]) {
      expect(loggablePath(`/functions/v1${path}`)).not.toContain(token);
      expect(loggablePath(`/functions/v1${path}`)).toContain('[link]');
    }
    expect(loggablePath('/functions/v1/claims/REQ-7KQ2MX/placement')).toBe('/functions/v1/claims/REQ-7KQ2MX/placement');
  });

  it('reads a path as the router does: encoded, partial or misshapen tokens are hidden too', () => {
    const [header, payload, signature] = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLW9mLWxpbms'.split('.');
    const feed = `cal_test_${'a1B2c3D4e5'.repeat(4)}`;
    const cases: [string, string][] = [
      [`/household/${header}%2E${payload}.${signature}`, '/household/[link]'],
      [`/household/${header}%252E${payload}%252E${signature}/lease`, '/household/[link]/lease'],
      [`/pay/${header}.${payload}`, '/pay/[link]'],
      [`/pay/${header}.${payload}.`, '/pay/[link]'],
      [`/pay/setup/${payload}`, '/pay/setup/[link]'],
      [`/calendar/cal_test_%75${feed.slice('cal_test_u'.length)}.ics`, '/calendar/[feed]'],
      [`/calendar/${feed.slice(0, 20)}`, '/calendar/[feed]'],
      // Elsewhere than a page, a segment that reads as a token once decoded.
      [`/claims/${payload}`, '/claims/[link]'],
      [`/properties/%63al_${feed.slice(4)}/calendar-export`, '/properties/[feed]/calendar-export'],
    ];
    for (const [path, logged] of cases) {
      expect(loggablePath(`/functions/v1${path}`), path).toBe(`/functions/v1${logged}`);
      expect(loggablePath(path), path).toBe(logged);
    }
  });

  it('logs one line per request, with the link redacted', async () => {
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
    const previous = process.env.LOG_LEVEL;
    process.env.LOG_LEVEL = 'info';
    try {
      const token = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLW9mLWxpbms';
      await call('GET', `/household/${token}`);
      const logged = lines.map((line) => JSON.parse(line)).find((entry) => entry.message === 'request');
      expect(logged?.path).toBe('/household/[link]');
      expect(lines.join('\n')).not.toContain(token);
    } finally {
      process.env.LOG_LEVEL = previous;
    }
  });
});
