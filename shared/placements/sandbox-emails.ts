import type { Tx } from '../db/client.ts';
import { afterCursorRow, assertCursorRowVisible, cursorRowId, rowPage } from '../db/paging.ts';
import type { EmailMessage } from './ports/types.ts';

// The sandbox's outbox (GET /sandbox/emails): in sandbox nobody receives the service's emails, so
// the messages its jobs sent (send_email, and send_household_link, which keeps its message in
// sandbox) are read back from the job queue, newest first.

interface EmailJobRow {
  id: string;
  kind: 'send_email' | 'send_household_link';
  status: 'pending' | 'succeeded' | 'abandoned';
  payload: Record<string, unknown>;
  result: { message?: EmailMessage } | null;
  created_at: Date;
  completed_at: Date | null;
}

export async function sandboxEmails(tx: Tx, query: { limit: number; cursor?: string }) {
  const after = cursorRowId(query.cursor);
  const rows = await tx<EmailJobRow[]>`
    select j.id, j.kind, j.status, j.payload, j.result, j.created_at, j.completed_at from app.jobs j
     where j.kind in ('send_email', 'send_household_link') and j.environment = 'sandbox'
       ${afterCursorRow(tx, 'j', 'app.jobs', after)}
     order by j.created_at desc, j.id desc
     limit ${query.limit + 1}`;
  await assertCursorRowVisible(tx, 'app.jobs', after, rows);
  return rowPage(rows, query.limit, renderEmail);
}

function renderEmail(row: EmailJobRow) {
  const message = (row.kind === 'send_email' ? row.payload : row.result?.message) as Partial<EmailMessage> | undefined;
  return {
    id: row.id,
    topic: message?.topic ?? 'home.offered',
    to: message?.to ?? [],
    subject: message?.subject ?? null,
    text: message?.text ?? null,
    html: message?.html ?? null,
    status: row.status === 'succeeded' ? ('sent' as const) : row.status === 'pending' ? ('queued' as const) : ('failed' as const),
    queued_at: row.created_at.toISOString(),
    sent_at: row.status === 'succeeded' ? row.completed_at?.toISOString() ?? null : null,
  };
}
