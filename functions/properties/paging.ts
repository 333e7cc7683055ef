import { z } from '@hono/zod-openapi';

// Paging of the provider's lists: newest first, row-anchored cursors (shared/db/row-cursor.ts).

const maxPageSize = 100;

export const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(maxPageSize).default(25).describe('Page size, 1 to 100 (default 25).'),
  cursor: z.string().optional().describe('next_cursor of the previous page, passed back unchanged. A cursor this list did not give to this key is refused (422 on cursor).'),
});
