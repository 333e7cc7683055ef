import { intSetting, setting } from '../config.ts';
import type { Environment } from '../db/tenant.ts';

// Crawl port: asks the service's home-sourcing crawler to look for homes around a request's loss
// postcode. Live requests use the crawler configured by SOURCING_CRAWL_URL (JSON POST, optional
// bearer token); sandbox requests use the recording adapter, which contacts nobody: the request is
// kept with the sourcing round, as every request is.

export interface CrawlRequest {
  request_id: string;
  reference: string;
  postcode: string;
  city: string;
  state: string;
  country: string;
  latitude: number;
  longitude: number;
  radius_miles: number;
  bedrooms: number;
  target_move_in: string;
}

export type CrawlStatus = 'sent' | 'recorded' | 'not_configured' | 'failed';

export interface CrawlOutcome {
  status: CrawlStatus;
  detail?: string;
}

export interface Crawler {
  request(crawl: CrawlRequest): Promise<CrawlOutcome>;
  /**
   * The outcome of every request when this adapter contacts nobody (the recording adapter; a live
   * one with no crawler configured): known before the round commits, so it is recorded with the
   * round and nothing is sent after.
   */
  readonly settled?: CrawlOutcome;
}

export interface LiveCrawlerOptions {
  url?: string;
  token?: string;
  timeoutMs: number;
  fetch?: typeof fetch;
}

/** POSTs the crawl request to the configured crawler; never throws (sourcing does not fail with it). */
export function liveCrawler(options: LiveCrawlerOptions): Crawler {
  if (!options.url) {
    const settled: CrawlOutcome = { status: 'not_configured', detail: 'SOURCING_CRAWL_URL is not set' };
    return { settled, request: async () => settled };
  }
  const url = options.url;
  return {
    async request(crawl) {
      try {
        const response = await (options.fetch ?? fetch)(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
          },
          body: JSON.stringify(crawl),
          signal: AbortSignal.timeout(options.timeoutMs),
        });
        await response.body?.cancel();
        return response.ok ? { status: 'sent' } : { status: 'failed', detail: `crawler answered ${response.status}` };
      } catch (error) {
        return { status: 'failed', detail: (error as Error).message || String(error) };
      }
    },
  };
}

export const recordingCrawler: Crawler = {
  settled: { status: 'recorded' },
  request: async () => ({ status: 'recorded' }),
};

export function crawlerFor(environment: Environment): Crawler {
  if (environment === 'sandbox') return recordingCrawler;
  return liveCrawler({
    url: setting('SOURCING_CRAWL_URL', ''),
    token: setting('SOURCING_CRAWL_TOKEN', ''),
    timeoutMs: intSetting('SOURCING_CRAWL_TIMEOUT_MS', 3000),
  });
}
