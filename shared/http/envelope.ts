// Response envelopes of the specification: a resource under `data`; a list under `data`
// with `count` and, where paged, `next_cursor` (null on the last page; cursors in shared/http/paging.ts).

export const single = <T>(data: T) => ({ data });

// The list envelope is defined with the paging the domains' lists use (shared/db/paging.ts).
export { list } from '../db/paging.ts';
