// What the server says at start-up about pg_cron scheduling (see migrations/*_webhook_scheduling_*):
// on Supabase, pg_cron and pg_net deliver webhooks while no server runs; when they are not set up,
// or run the dispatcher only every minute, the server says so and why, once.
import type postgres from 'postgres';

export interface SchedulingStatus {
  scheduled: boolean;
  schedule: string | null;
  reason: string | null;
}

type Warn = (message: string, fields: Record<string, unknown>) => void;

export async function reportScheduling(sql: postgres.Sql | postgres.TransactionSql, warn: Warn): Promise<SchedulingStatus> {
  const [status] = await sql<SchedulingStatus[]>`select scheduled, schedule, reason from app.webhook_scheduling_status()`;
  if (!status.scheduled) {
    warn('webhook scheduling by pg_cron is not set up', {
      reason: status.reason,
      consequence: 'webhooks are delivered only while this server runs (its own timer); see docs/webhooks.md',
    });
  } else if (!/second/.test(status.schedule ?? '')) {
    warn('webhook dispatch by pg_cron runs every minute, not every 10 seconds', {
      schedule: status.schedule,
      reason: 'pg_cron before 1.5 has no seconds schedules',
    });
  }
  return status;
}

/** postgres.js notice handler: the migrations' WARNINGs reach the log; routine NOTICEs do not. */
export const warningsTo = (warn: Warn) => (notice: postgres.Notice) => {
  if (notice.severity === 'WARNING') warn('database warning', { detail: notice.message });
};
