// How an imported calendar's address is shown to anyone but the fetch: a channel's export address
// carries its key in the query (Airbnb's `?s=…`), and anyone with it reads the home's bookings
// elsewhere. The routes, the events (and so webhook payloads) and the fetch's errors all show it
// through this one function; the whole address stays stored for the fetch alone.

/** The address with its query (and any user info) hidden: `https://host/path?…`. */
export function shownUrl(stored: string): string {
  const url = new URL(stored);
  const shown = `${url.protocol}//${url.username || url.password ? '…@' : ''}${url.host}${url.pathname}`;
  return url.search ? `${shown}?…` : shown;
}
