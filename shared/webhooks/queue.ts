import type { Sql } from '../db/client.ts';
import type { DeliverySource } from './envelope.ts';

// The two statements of the delivery queue (app.webhook_deliveries, see the webhooks migration).
// Both are single set-based statements, safe for any number of dispatchers at once.

export interface ClaimedDelivery extends DeliverySource {
  lease_token: string;
  attempts: number;
  endpoint_id: string;
  url: string;
  signing_secret: string;
}

export interface AttemptResult {
  id: string;
  lease_token: string;
  ok: boolean;
  at: string;
  duration_ms: number;
  http_status: number | null;
  response_body: string | null;
  error: string | null;
}

/**
 * Claims up to `limit` due deliveries, oldest due first. SKIP LOCKED lets concurrent claims pass
 * each other; the claim leases each row by moving its due time `leaseMs` ahead, so no other
 * dispatcher takes it while it is in flight, and a dispatcher that dies loses nothing: its rows fall
 * due again when the lease runs out. Re-claiming such a row records the lost attempt as interrupted.
 * The claimed rows are updated by primary key (`= any` of their ids), not joined to the claim: the
 * planner guesses a tenth of the due rows for a limit it cannot see, and once many were due joined
 * that many rows by reading the whole table, once a claim.
 */
export async function claimDue(sql: Sql, limit: number, leaseMs: number, organisations?: string[]): Promise<ClaimedDelivery[]> {
  const onlyThese = organisations ? sql`and org_id = any (${organisations}::uuid[])` : sql``;
  return sql<ClaimedDelivery[]>`
    with due as (
      select id from app.webhook_deliveries
       where status = 'pending' and next_attempt_at <= now() ${onlyThese}
       order by next_attempt_at
       limit ${limit}
       for update skip locked
    ), claimed as (
      update app.webhook_deliveries d
         set attempts = d.attempts + 1,
             lease_token = gen_random_uuid(),
             claimed_at = now(),
             next_attempt_at = now() + ${leaseMs} * interval '1 millisecond',
             history = case when d.lease_token is null then d.history
                       else d.history || jsonb_build_array(jsonb_build_object(
                         'attempt', d.attempts, 'at', d.claimed_at, 'outcome', 'interrupted',
                         'http_status', null, 'response_body', null, 'duration_ms', null,
                         'error', 'the dispatcher stopped before the answer was recorded')) end
       where d.id = any (array(select id from due))
      returning d.id, d.lease_token, d.attempts, d.endpoint_id, d.event_id, d.event, d.replay, d.signing_secret, d.created_at
    )
    select c.*, w.url, e.payload, e.created_at as event_created_at, e.simulated
      from claimed c
      join app.webhook_endpoints w on w.id = c.endpoint_id
      left join app.events e on e.id = c.event_id`;
}

/**
 * Records the outcome of attempts: success ends a delivery; a failure waits the step of
 * `schedule` (seconds) that follows its attempt, and the failure after the last step abandons it.
 * Only the holder of the claim records (the lease token), so a result that arrives after its
 * lease was taken over is dropped rather than written twice. The rows are found by primary key (`=
 * any` of the ids) for the same reason as claimDue's: a join to the results, planned for the hundred
 * rows guessed of any JSON set, read the whole table.
 */
export async function recordAttempts(sql: Sql, results: AttemptResult[], schedule: number[]): Promise<void> {
  if (results.length === 0) return;
  const ids = results.map((result) => result.id);
  await sql`
    with result as (
      select * from jsonb_to_recordset(${sql.json(results as never)}) as r(
        id uuid, lease_token uuid, ok boolean, at timestamptz, duration_ms integer,
        http_status integer, response_body text, error text)
    ), decided as (
      select r.*, d.attempts,
             case when r.ok then 'succeeded'
                  when d.status <> 'pending' then d.status
                  when d.attempts > cardinality(${schedule}::float8[]) then 'abandoned'
                  else 'pending' end as next_status,
             (${schedule}::float8[])[d.attempts] as wait_seconds
        from result r join app.webhook_deliveries d on d.id = r.id and d.lease_token = r.lease_token
       where d.id = any (${ids}::uuid[])
    )
    update app.webhook_deliveries d
       set status = x.next_status,
           next_attempt_at = case when x.next_status = 'pending' then now() + make_interval(secs => x.wait_seconds) end,
           signing_secret = case when x.next_status = 'pending' then d.signing_secret end,
           completed_at = case when x.next_status = 'pending' then null else coalesce(d.completed_at, now()) end,
           lease_token = null,
           claimed_at = null,
           history = d.history || jsonb_build_array(jsonb_build_object(
             'attempt', x.attempts, 'at', x.at, 'outcome', case when x.ok then 'succeeded' else 'failed' end,
             'http_status', x.http_status, 'response_body', x.response_body, 'error', x.error, 'duration_ms', x.duration_ms))
      from decided x
     where d.id = any (${ids}::uuid[]) and d.id = x.id and d.lease_token = x.lease_token`;
}
