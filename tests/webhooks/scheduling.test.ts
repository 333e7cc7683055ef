// Scheduling on Supabase: pg_cron calls app.invoke_webhook_dispatcher(), which POSTs through pg_net to
// the internal webhook-dispatcher function with the address and secret kept in Vault. The embedded
// database has neither extension, so the migration skips scheduling there; the Supabase side is
// exercised against stand-ins for Vault and pg_net inside a transaction that is rolled back.
import postgres from 'postgres';
import { connect } from '../../shared/db/client.ts';
import { afterAll, describe, expect, it } from 'vitest';
import { client, createTenant } from '../helpers.ts';
import { recordEvent } from './support.ts';
import { reportScheduling, type Say } from '../../scripts/lib/scheduling.ts';

const notices: string[] = [];
const sql = connect(process.env.DATABASE_URL!, { max: 1, onnotice: (notice) => notices.push(notice.message) });
afterAll(() => sql.end());

class RolledBack extends Error {}

/** The start-up lines reportScheduling writes, as [level, message, fields]. */
function recordedLines() {
  const lines: [string, string, Record<string, unknown>][] = [];
  const say: Say = {
    info: (message, fields) => lines.push(['info', message, fields]),
    warn: (message, fields) => lines.push(['warn', message, fields]),
  };
  return { lines, say };
}

const notInstalled = (extension: string) => ({
  missing: `${extension} is not installed on this database server`,
  fix: expect.stringMatching(new RegExp(`^install ${extension} on the database server .*add it to shared_preload_libraries, restart PostgreSQL, then run select app\\.schedule_webhook_jobs\\(\\)$`)),
});

/** Runs `work` in a transaction that is always rolled back. */
async function inRolledBackTransaction(work: (tx: postgres.TransactionSql) => Promise<void>) {
  await sql.begin(async (tx) => {
    await work(tx);
    throw new RolledBack();
  }).catch((error) => {
    if (!(error instanceof RolledBack)) throw error;
  });
}

describe('the webhooks migration without pg_cron', () => {
  it('skips scheduling with a warning and leaves the migration running', async () => {
    const [{ available }] = await sql<{ available: number }[]>`
      select count(*)::int as available from pg_available_extensions where name in ('pg_cron', 'pg_net')`;
    expect(available).toBe(0);
    await inRolledBackTransaction(async (tx) => {
      const [{ scheduled }] = await tx<{ scheduled: boolean }[]>`select app.schedule_webhook_jobs() as scheduled`;
      expect(scheduled).toBe(false);
      // The transaction is still usable after the refused extensions.
      const [{ ok }] = await tx<{ ok: number }[]>`select 1 as ok`;
      expect(ok).toBe(1);
    });
    // Each extension is named with its fix, not only the first one tried.
    expect(notices).toContainEqual(
      expect.stringMatching(/^webhook scheduling not set up: pg_cron is not installed on this database server \(fix: install pg_cron .*\); pg_net is not installed on this database server \(fix: install pg_net .*\); webhooks are delivered only by the local server's timer$/),
    );
    const [{ cron }] = await sql<{ cron: boolean }[]>`select exists (select 1 from pg_namespace where nspname = 'cron') as cron`;
    expect(cron).toBe(false);
  });

  it('makes the server warn at start-up, saying why and the fix, and that its timer delivers', async () => {
    const { lines, say } = recordedLines();
    const status = await reportScheduling(sql, say, 1000);
    const reason = 'pg_cron is not installed on this database server; pg_net is not installed on this database server';
    expect(status).toEqual({ scheduled: false, schedule: null, reason, fix: expect.stringMatching(/^install pg_cron .*; install pg_net /) });
    expect(lines).toEqual([
      ['warn', 'webhook scheduling by pg_cron is not set up', expect.objectContaining({ reason, fix: status.fix })],
      ['info', 'webhook delivery', { driven_by: "this server's timer", pg_cron: 'not set up', timer: 'every 1000 ms' }],
    ]);
  });

  it('says nothing delivers when the server\'s timer is off too', async () => {
    const { lines, say } = recordedLines();
    await reportScheduling(sql, say, null);
    expect(lines).toEqual([
      ['warn', "webhooks are not delivered: the server's timer is off and pg_cron is not set up", expect.objectContaining({ reason: expect.stringMatching(/^pg_cron is not installed/) })],
      ['info', 'webhook delivery', { driven_by: 'nothing', pg_cron: 'not set up', timer: 'off' }],
    ]);
  });
});

/** A pg_cron whose cron.schedule records jobs in cron.job; `seconds: false` refuses seconds schedules as pg_cron before 1.5 does. */
async function cronStandIn(tx: postgres.TransactionSql, options: { seconds: boolean; broken?: boolean }) {
  await tx`create schema cron`;
  await tx`create table cron.job (jobname text primary key, schedule text, command text)`;
  const refuse = options.broken
    ? `raise exception 'cron is broken';`
    : options.seconds ? '' : `if schedule like '%second%' then raise exception 'invalid schedule: %', schedule; end if;`;
  await tx.unsafe(`
    create function cron.schedule(job_name text, schedule text, command text) returns bigint
    language plpgsql as $$
    begin
      ${refuse}
      insert into cron.job values (job_name, schedule, command)
        on conflict (jobname) do update set schedule = excluded.schedule, command = excluded.command;
      return 1;
    end $$`);
}

async function netStandIn(tx: postgres.TransactionSql) {
  await tx`create schema net`;
  await tx`create table net.calls (url text, body jsonb, headers jsonb, timeout_milliseconds integer)`;
  await tx.unsafe(`
    create function net.http_post(url text, body jsonb default '{}', params jsonb default '{}',
                                  headers jsonb default '{}', timeout_milliseconds integer default 5000) returns bigint
    language sql as $$ insert into net.calls values (url, body, headers, timeout_milliseconds) returning 7 $$`);
}

async function vaultStandIn(tx: postgres.TransactionSql, secrets: Record<string, string>) {
  await tx`create schema vault`;
  await tx`create table vault.decrypted_secrets (name text, decrypted_secret text)`;
  for (const [name, value] of Object.entries(secrets)) await tx`insert into vault.decrypted_secrets values (${name}, ${value})`;
}

const vaultSecrets = {
  webhook_dispatcher_url: 'https://project.supabase.co/functions/v1/webhook-dispatcher',
  webhook_dispatcher_secret: 'cron-secret-123',
};

describe('the webhooks migration with pg_cron and pg_net (stand-ins)', () => {
  const jobs = (tx: postgres.TransactionSql) => tx`select jobname, schedule, command from cron.job order by jobname`;

  /** A complete Supabase set-up with the given pg_cron; returns the jobs the scheduling function created. */
  async function scheduleOn(tx: postgres.TransactionSql, seconds: boolean) {
    await cronStandIn(tx, { seconds });
    await netStandIn(tx);
    await vaultStandIn(tx, vaultSecrets);
    const [{ scheduled }] = await tx<{ scheduled: boolean }[]>`select app.schedule_webhook_jobs() as scheduled`;
    expect(scheduled).toBe(true);
    return jobs(tx);
  }

  it('schedules the dispatcher every 10 seconds where pg_cron takes seconds; the server warns of nothing and says who delivers', async () => {
    await inRolledBackTransaction(async (tx) => {
      expect(await scheduleOn(tx, true)).toEqual([
        { jobname: 'event-retention', schedule: '17 * * * *', command: 'call app.purge_expired()' },
        { jobname: 'grown-statistics', schedule: '10 seconds', command: 'select app.refresh_grown_statistics()' },
        { jobname: 'webhook-dispatch', schedule: '10 seconds', command: 'select app.invoke_webhook_dispatcher()' },
      ]);
      const withTimer = recordedLines();
      expect(await reportScheduling(tx, withTimer.say, 1000)).toEqual({ scheduled: true, schedule: '10 seconds', reason: null, fix: null });
      expect(withTimer.lines).toEqual([
        ['info', 'webhook delivery', { driven_by: "pg_cron and this server's timer", pg_cron: '10 seconds', timer: 'every 1000 ms' }],
      ]);
      const timerOff = recordedLines();
      await reportScheduling(tx, timerOff.say, null);
      expect(timerOff.lines).toEqual([['info', 'webhook delivery', { driven_by: 'pg_cron', pg_cron: '10 seconds', timer: 'off' }]]);
    });
  });

  it('falls back to every minute on pg_cron before 1.5, with a warning, and never aborts', async () => {
    notices.length = 0;
    await inRolledBackTransaction(async (tx) => {
      expect(await scheduleOn(tx, false)).toEqual([
        { jobname: 'event-retention', schedule: '17 * * * *', command: 'call app.purge_expired()' },
        // The statistics follow every minute there too; the dispatcher's warning says why.
        { jobname: 'grown-statistics', schedule: '* * * * *', command: 'select app.refresh_grown_statistics()' },
        { jobname: 'webhook-dispatch', schedule: '* * * * *', command: 'select app.invoke_webhook_dispatcher()' },
      ]);
      const { lines, say } = recordedLines();
      await reportScheduling(tx, say, null);
      expect(lines).toEqual([
        ['warn', 'webhook dispatch by pg_cron runs every minute, not every 10 seconds', expect.objectContaining({ schedule: '* * * * *' })],
        ['info', 'webhook delivery', { driven_by: 'pg_cron', pg_cron: '* * * * *', timer: 'off' }],
      ]);
    });
    expect(notices).toEqual([
      'webhook dispatch scheduled every minute: pg_cron refused a 10-second schedule (invalid schedule: 10 seconds; seconds need pg_cron 1.5 or later)',
    ]);
  });

  it('returns false with a warning when pg_cron fails outright, leaving the transaction usable', async () => {
    notices.length = 0;
    await inRolledBackTransaction(async (tx) => {
      await cronStandIn(tx, { seconds: true, broken: true });
      await netStandIn(tx);
      const [{ scheduled }] = await tx<{ scheduled: boolean }[]>`select app.schedule_webhook_jobs() as scheduled`;
      expect(scheduled).toBe(false);
      expect(await jobs(tx)).toEqual([]);
      const [status] = await tx`select * from app.webhook_scheduling_status()`;
      expect(status).toEqual({ scheduled: false, schedule: null, reason: 'no pg_cron job named webhook-dispatch', fix: 'run select app.schedule_webhook_jobs()' });
    });
    expect(notices).toContainEqual(expect.stringMatching(/^webhook scheduling not set up: cron is broken \(no pg_cron job was created\)$/));
  });

  it('names exactly what is missing, with the fix: pg_net alone, pg_cron alone, Vault, a Vault secret', async () => {
    const statusWith = async (setUp: (tx: postgres.TransactionSql) => Promise<void>) => {
      let status: { reason: string | null; fix: string | null } = { reason: null, fix: null };
      await inRolledBackTransaction(async (tx) => {
        await setUp(tx);
        status = await reportScheduling(tx, recordedLines().say, 1000);
      });
      return status;
    };
    const reasonWith = async (setUp: (tx: postgres.TransactionSql) => Promise<void>) => (await statusWith(setUp)).reason;
    const { missing: netMissing, fix: netFix } = notInstalled('pg_net');
    expect(await statusWith((tx) => cronStandIn(tx, { seconds: true }))).toEqual({ scheduled: false, schedule: null, reason: netMissing, fix: netFix });
    const { missing: cronMissing, fix: cronFix } = notInstalled('pg_cron');
    expect(await statusWith((tx) => netStandIn(tx))).toEqual({ scheduled: false, schedule: null, reason: cronMissing, fix: cronFix });
    expect(await reasonWith(async (tx) => {
      await cronStandIn(tx, { seconds: true });
      await netStandIn(tx);
      await tx`select app.schedule_webhook_jobs()`;
    })).toMatch(/^Supabase Vault is not enabled/);
    expect(await reasonWith(async (tx) => {
      await cronStandIn(tx, { seconds: true });
      await netStandIn(tx);
      await vaultStandIn(tx, { webhook_dispatcher_url: vaultSecrets.webhook_dispatcher_url });
      await tx`select app.schedule_webhook_jobs()`;
    })).toBe('Vault lacks webhook_dispatcher_secret');
    expect((await statusWith(async (tx) => {
      await cronStandIn(tx, { seconds: true });
      await netStandIn(tx);
      await vaultStandIn(tx, {});
      await tx`select app.schedule_webhook_jobs()`;
    })).fix).toMatch(/^store the address and the secret of the webhook-dispatcher function in Vault: select vault\.create_secret\(/);
  });
});

describe('app.invoke_webhook_dispatcher (Supabase)', () => {
  /** Vault holding `secrets`, and a pg_net whose http_post records its calls. */
  async function standIns(tx: postgres.TransactionSql, secrets: Record<string, string>) {
    await vaultStandIn(tx, secrets);
    await netStandIn(tx);
  }

  async function dueDelivery() {
    const tenant = await createTenant('carrier');
    expect((await client(tenant.live).post('/webhooks', { url: 'https://hooks.customer.example/a' })).status).toBe(201);
    await recordEvent(tenant.orgId, 'live', 'option.saved', {});
  }

  it('POSTs to the dispatcher function with the secret from Vault when deliveries are due', async () => {
    await dueDelivery();
    await inRolledBackTransaction(async (tx) => {
      await standIns(tx, {
        webhook_dispatcher_url: 'https://project.supabase.co/functions/v1/webhook-dispatcher',
        webhook_dispatcher_secret: 'cron-secret-123',
      });
      const [{ request }] = await tx<{ request: number }[]>`select app.invoke_webhook_dispatcher()::int as request`;
      expect(request).toBe(7);
      const calls = await tx`select url, body, headers, timeout_milliseconds from net.calls`;
      expect(calls).toEqual([
        {
          url: 'https://project.supabase.co/functions/v1/webhook-dispatcher',
          body: {},
          headers: { 'Content-Type': 'application/json', Authorization: 'Bearer cron-secret-123' },
          timeout_milliseconds: 30000,
        },
      ]);
    });
  });

  it('calls nothing and fails, naming what Vault lacks, so that the pg_cron run is recorded as failed', async () => {
    await dueDelivery();
    await inRolledBackTransaction(async (tx) => {
      await standIns(tx, { webhook_dispatcher_url: 'https://project.supabase.co/functions/v1/webhook-dispatcher' });
      await expect(tx.savepoint((inner) => inner`select app.invoke_webhook_dispatcher()`)).rejects.toThrow(
        /^webhook dispatch not called: Vault lacks webhook_dispatcher_secret; store them in Vault \(see docs\/webhooks\.md\)$/,
      );
      expect(await tx`select * from net.calls`).toEqual([]);
    });
    await inRolledBackTransaction(async (tx) => {
      await netStandIn(tx);
      await expect(tx.savepoint((inner) => inner`select app.invoke_webhook_dispatcher()`)).rejects.toThrow(/^webhook dispatch not called: Supabase Vault is not enabled/);
    });
  });
});
