// What the server says at start-up about who delivers webhooks (see migrations/*_webhook_scheduling_*
// and *_pg_cron_without_pg_net): on Supabase, pg_cron and pg_net deliver them while no server runs;
// locally, the server's own timer (WEBHOOK_DISPATCH_INTERVAL_MS), which can be switched off where
// pg_cron drives delivery. One `webhook delivery` line says which of the two drives it; a warning
// says why pg_cron does not, with the fix, or that nothing delivers at all.
import type postgres from 'postgres';

export interface SchedulingStatus {
  scheduled: boolean;
  schedule: string | null;
  reason: string | null;
  fix: string | null;
}

type Line = (message: string, fields: Record<string, unknown>) => void;
export interface Say {
  info: Line;
  warn: Line;
}

/** `timerMs`: the server's own dispatch timer, null when switched off (WEBHOOK_DISPATCH_INTERVAL_MS=off). */
export async function reportScheduling(sql: postgres.Sql | postgres.TransactionSql, say: Say, timerMs: number | null): Promise<SchedulingStatus> {
  const [status] = await sql<SchedulingStatus[]>`select scheduled, schedule, reason, fix from app.webhook_scheduling_status()`;
  const timer = timerMs === null ? 'off' : `every ${timerMs} ms`;
  if (!status.scheduled) {
    if (timerMs === null) {
      say.warn('webhooks are not delivered: the server\'s timer is off and pg_cron is not set up', {
        reason: status.reason,
        fix: status.fix,
        alternatively: 'unset WEBHOOK_DISPATCH_INTERVAL_MS to let this server deliver them',
      });
    } else {
      say.warn('webhook scheduling by pg_cron is not set up', {
        reason: status.reason,
        fix: status.fix,
        consequence: 'webhooks are delivered only while this server runs (its own timer); see docs/webhooks.md',
      });
    }
  } else if (!/second/.test(status.schedule ?? '')) {
    say.warn('webhook dispatch by pg_cron runs every minute, not every 10 seconds', {
      schedule: status.schedule,
      reason: 'pg_cron before 1.5 has no seconds schedules',
    });
  }
  const drivers = [status.scheduled && 'pg_cron', timerMs !== null && 'this server\'s timer'].filter(Boolean);
  say.info('webhook delivery', {
    driven_by: drivers.length ? drivers.join(' and ') : 'nothing',
    pg_cron: status.scheduled ? status.schedule : 'not set up',
    timer,
  });
  return status;
}

/** postgres.js notice handler: the migrations' WARNINGs reach the log; routine NOTICEs do not. */
export const warningsTo = (warn: Line) => (notice: postgres.Notice) => {
  if (notice.severity === 'WARNING') warn('database warning', { detail: notice.message });
};
