// Response envelopes of the specification: a resource under `data`; a list under `data`
// with `count` and, where paged, `next_cursor` (null on the last page; cursors in shared/http/paging.ts).

export const single = <T>(data: T) => ({ data });

export function list<T>(data: T[]): { data: T[]; count: number };
export function list<T>(data: T[], nextCursor: string | null): { data: T[]; count: number; next_cursor: string | null };
export function list<T>(data: T[], nextCursor?: string | null) {
  return nextCursor === undefined ? { data, count: data.length } : { data, count: data.length, next_cursor: nextCursor };
}
