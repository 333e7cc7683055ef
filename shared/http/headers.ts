import type { Context } from 'hono';

/**
 * Sets headers on the response that a middleware's next() produced, where it is. Hono's c.header()
 * copies a finished response for every header it sets (its headers might be immutable), and on Node
 * each copy also turns the adapter's lightweight response into a full one whose body is then
 * streamed; the responses the functions build have mutable headers, so they are set in place. A
 * response whose headers are immutable (one passed through from fetch, say) is copied once.
 */
export function setResponseHeaders(c: Context, headers: Record<string, string>): void {
  try {
    for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
  } catch {
    c.res = new Response(c.res.body, c.res);
    for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
  }
}
