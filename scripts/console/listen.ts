import type postgres from 'postgres';
import { config } from '../../shared/config.ts';
import { withTenant } from '../../shared/db/tenant.ts';
import type { Side } from '../../shared/db/tenant.ts';
import { knownEvents } from '../../shared/events/params.ts';
import { DomainError } from '../../shared/domain-errors.ts';
import { randomString } from '../../shared/keys.ts';
import { readExcerpt } from '../../shared/webhooks/dispatcher.ts';
import { Signer } from '../../shared/webhooks/signature.ts';
import { signedDelivery } from '../../shared/webhooks/signed-delivery.ts';
import { pause } from '../../shared/pause.ts';
import { listEvents, type LoggedEvent } from '../../functions/events/repository.ts';
import type { EventName } from '../../shared/events/definition.ts';
import { ConsoleError, required, uuidOption, type Command, type Options, type RunContext } from './options.ts';

// `listen`: an organisation's sandbox events forwarded to a local address, the way a payment
// processor's CLI forwards its events to a laptop. A webhook endpoint must be https on the public
// internet; a receiver being written on a laptop is neither. The forwarder follows the event log
// (the rows GET /events pages through, read by the same repository function) and POSTs each event,
// signed exactly as a delivery is (shared/webhooks/signed-delivery.ts), with the secret that
// `listen --print-secret` prints. It prints one JSON line per event with the receiver's answer.
//
// Following a newest-first log: each poll reads the events recorded after a moment `lookbackMs`
// before the newest one forwarded, because a transaction may record an event before another one
// does and commit after it; the ids forwarded within that look-back are kept (the cursor's
// `recent`) and skipped. The cursor is saved after every event, per organisation and local address
// (app.event_forwarding_cursors), so a restart resumes where the last run stopped: nothing recorded
// meanwhile is missed, nothing forwarded is sent again. A receiver that fails or does not answer is
// reported on the event's line and not retried (replaying is POST /events/{id}/replay, to endpoints).

/** How far before the newest event forwarded each poll reads again (events committed late). */
const lookbackMs = 60_000;
/** Rows per page of the log: the most GET /events gives. */
const pageSize = 250;
/** How much of the receiver's answer a line shows. */
const answerChars = 200;

interface Cursor {
  started_at: string;
  position: string;
  recent: { id: string; at: string }[];
  forwarded: number;
}

/** A recording time as Postgres prints it (microseconds, offset) in microseconds since the epoch: positions compare exactly. */
function micros(position: string): bigint {
  const match = position.match(/^(.*T\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?(.*)$/);
  if (!match) throw new Error(`not a recording time: ${position}`);
  return BigInt(Date.parse(`${match[1]}${match[3]}`)) * 1000n + BigInt((match[2] ?? '').padEnd(6, '0'));
}

async function organisation(sql: postgres.Sql, id: string) {
  const [org] = await sql<{ id: string; side: Side }[]>`select id, side from app.organisations where id = ${id}`;
  if (!org) throw new ConsoleError('not_found', `no organisation ${id}`);
  return org;
}

/** The organisation's forwarding secret, made at first use and kept (a receiver configured once goes on verifying). */
async function forwardingSecret(sql: postgres.Sql, orgId: string): Promise<string> {
  await sql`
    insert into app.event_forwarding_secrets (org_id, environment, signing_secret)
    values (${orgId}, 'sandbox', ${`whsec_${randomString(32)}`})
    on conflict (org_id, environment) do nothing`;
  const [row] = await sql<{ signing_secret: string }[]>`
    select signing_secret from app.event_forwarding_secrets where org_id = ${orgId} and environment = 'sandbox'`;
  return row.signing_secret;
}

/** The saved cursor for this address, or a new one starting now: events recorded before a first run are not forwarded. */
async function openCursor(sql: postgres.Sql, orgId: string, forwardTo: string): Promise<Cursor> {
  await sql`
    insert into app.event_forwarding_cursors (org_id, environment, forward_to, started_at, position)
    select ${orgId}, 'sandbox', ${forwardTo}, t.now, t.now from (select to_json(clock_timestamp()) #>> '{}' as now) t
    on conflict (org_id, environment, forward_to) do nothing`;
  const [row] = await sql<Cursor[]>`
    select started_at, position, recent, forwarded::int as forwarded from app.event_forwarding_cursors
     where org_id = ${orgId} and environment = 'sandbox' and forward_to = ${forwardTo}`;
  return row;
}

async function saveCursor(sql: postgres.Sql, orgId: string, forwardTo: string, cursor: Cursor) {
  await sql`
    update app.event_forwarding_cursors
       set position = ${cursor.position}, recent = ${sql.json(cursor.recent as never)}, forwarded = ${cursor.forwarded}, updated_at = clock_timestamp()
     where org_id = ${orgId} and environment = 'sandbox' and forward_to = ${forwardTo}`;
}

/** The moment a poll reads from: the look-back before the position, never before the first run's start. */
function readFrom(cursor: Cursor): string {
  const back = micros(cursor.position) - BigInt(lookbackMs) * 1000n;
  if (back <= micros(cursor.started_at)) return cursor.started_at;
  const ms = Number(back / 1000n);
  const micro = String(Number(back % 1000n)).padStart(3, '0');
  return `${new Date(ms).toISOString().slice(0, 23)}${micro}Z`;
}

/** Events recorded since the cursor's look-back and not forwarded yet, oldest first, paged as GET /events pages. */
async function unforwarded(orgId: string, names: readonly EventName[], cursor: Cursor): Promise<LoggedEvent[]> {
  const since = readFrom(cursor);
  const rows = await withTenant({ orgId, environment: 'sandbox', readsOnly: true }, async (tx) => {
    const all: LoggedEvent[] = [];
    let after: readonly [string, string] | undefined;
    for (;;) {
      const page = await listEvents(tx, { names, since, after, limit: pageSize });
      all.push(...page.slice(0, pageSize));
      if (page.length <= pageSize) return all;
      const last = page[pageSize - 1];
      after = [last.position, last.id];
    }
  });
  const seen = new Set(cursor.recent.map((r) => r.id));
  return rows.filter((row) => !seen.has(row.id)).reverse();
}

interface Forwarded {
  status: number | null;
  duration_ms: number;
  answer?: string;
  error?: string;
}

/** POSTs one event, signed as a delivery; never throws: a receiver's failure is what the line says. */
async function forward(url: URL, signer: Signer, secret: string, row: LoggedEvent): Promise<Forwarded> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const { body, headers } = await signedDelivery(signer, secret, {
    id: crypto.randomUUID(),
    event: row.event,
    event_id: row.id,
    replay: false,
    created_at: row.created_at,
    payload: row.data,
    event_created_at: row.created_at,
    simulated: row.simulated,
  });
  try {
    const response = await fetch(url, { method: 'POST', body, headers, redirect: 'manual', signal: AbortSignal.timeout(config.webhookTimeoutMs()) });
    const answer = (await readExcerpt(response)).slice(0, answerChars);
    return { status: response.status, duration_ms: elapsed(), answer };
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return { status: null, duration_ms: elapsed(), error: timedOut ? `no answer within ${config.webhookTimeoutMs()} ms` : `${(error as Error).message}${cause}` };
  }
}


function forwardAddress(options: Options): URL {
  const raw = required(options, 'forward-to');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConsoleError('invalid_option', '--forward-to must be an address such as http://localhost:3000/hook');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConsoleError('invalid_option', '--forward-to must be an http or https address');
  return url;
}

function pollInterval(options: Options): number {
  const ms = Number(options['poll-ms'] ?? 1000);
  if (!Number.isInteger(ms) || ms < 50 || ms > 60_000) throw new ConsoleError('invalid_option', '--poll-ms must be an integer from 50 to 60000');
  return ms;
}

function eventNames(options: Options, side: Side): EventName[] {
  const requested = options.events?.split(',').map((name) => name.trim()).filter(Boolean) ?? [];
  try {
    return knownEvents(requested, side, 'events');
  } catch (error) {
    if (error instanceof DomainError) throw new ConsoleError('invalid_option', `--events: ${error.message}`);
    throw error;
  }
}

async function listen(sql: postgres.Sql, options: Options, context: RunContext) {
  const orgId = uuidOption(options, 'org');
  if ((options.env ?? 'sandbox') !== 'sandbox') {
    throw new ConsoleError(
      'sandbox_only',
      'listen forwards sandbox events only. Live events go to live webhook endpoints (https, on the public internet), signed and retried by the dispatcher; a live event is never sent to a local address.',
    );
  }
  const org = await organisation(sql, orgId);
  const secret = await forwardingSecret(sql, org.id);
  if (options['print-secret'] !== undefined) {
    return { data: { org_id: org.id, environment: 'sandbox', signing_secret: secret } };
  }
  const url = forwardAddress(options);
  const names = eventNames(options, org.side);
  const pollMs = pollInterval(options);
  const forwardTo = url.href;
  const cursor = await openCursor(sql, org.id, forwardTo);
  const signer = new Signer();
  const forwardedBefore = cursor.forwarded;
  process.stderr.write(
    `Ready: forwarding the sandbox events of ${org.id}${names.length ? ` (${names.join(', ')})` : ''} to ${forwardTo}, ` +
      `signed with the secret "listen --org ${org.id} --print-secret" prints. Ctrl-C stops; the next run resumes here.\n`,
  );
  while (!context.signal.aborted) {
    for (const row of await unforwarded(org.id, names, cursor)) {
      // The event in hand is finished and saved before a stop takes effect: a restart neither loses nor repeats it.
      const outcome = await forward(url, signer, secret, row);
      context.print(JSON.stringify({ event: row.event, id: row.id, created_at: row.created_at.toISOString(), forwarded_to: forwardTo, ...outcome }));
      if (micros(row.position) > micros(cursor.position)) cursor.position = row.position;
      const floor = micros(cursor.position) - BigInt(lookbackMs) * 1000n;
      cursor.recent = [...cursor.recent, { id: row.id, at: row.position }].filter((r) => micros(r.at) > floor);
      cursor.forwarded++;
      await saveCursor(sql, org.id, forwardTo, cursor);
      if (context.signal.aborted) break;
    }
    await pause(pollMs, context.signal);
  }
  return { data: { org_id: org.id, environment: 'sandbox', forwarded_to: forwardTo, forwarded: cursor.forwarded - forwardedBefore, forwarded_in_all: cursor.forwarded } };
}

export const listenCommands: Record<string, Command> = {
  listen: {
    usage: 'listen --org ORG_ID (--forward-to URL [--events a,b] [--poll-ms N] | --print-secret)',
    summary:
      "Sandbox only: follows the organisation's sandbox event log and POSTs each event to a local address (http is fine, no certificate), " +
      'signed exactly as a webhook delivery, printing one JSON line per event with the receiver\'s answer; Ctrl-C stops, and the next run ' +
      'resumes where it stopped (nothing missed, nothing repeated). --print-secret prints the whsec_ secret to verify with.',
    run: listen,
  },
};
