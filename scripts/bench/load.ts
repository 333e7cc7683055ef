// One measured load: autocannon at fixed concurrency for a fixed time against a loopback address.
import autocannon from 'autocannon';

export interface Load {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
}

export interface LoadOptions {
  url: string;
  connections: number;
  seconds: number;
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
}

export async function load(options: LoadOptions): Promise<Load> {
  if (!/^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])[:/]/.test(options.url)) throw new Error(`the benchmark only loads loopback addresses, not ${options.url}`);
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.seconds,
    method: options.method ?? 'GET',
    headers: { ...options.headers, ...(body ? { 'content-type': 'application/json' } : {}) },
    body,
    timeout: 30,
  });
  if (result.errors + result.timeouts + result.non2xx > 0) {
    // One more request, to say what went wrong.
    const sample = await fetch(options.url, { method: options.method ?? 'GET', headers: { ...options.headers, ...(body ? { 'content-type': 'application/json' } : {}) }, body }).then(
      async (response) => `${response.status} ${(await response.text()).slice(0, 300)}`,
      (error: Error) => error.message,
    );
    throw new Error(`${options.method ?? 'GET'} ${options.url}: ${result.errors + result.timeouts + result.non2xx} of ${result.requests.total} failed; for example: ${sample}`);
  }
  return {
    // Completed requests over the time of the run: the mean of per-second samples hides a slow tail.
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
  };
}

/** The run with the median throughput of several, interleaved by the caller. */
export function medianLoad(loads: Load[]): Load {
  return [...loads].sort((a, b) => a.rps - b.rps)[Math.floor(loads.length / 2)];
}
