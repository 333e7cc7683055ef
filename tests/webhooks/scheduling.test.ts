// Scheduling on Supabase: pg_cron calls app.invoke_webhook_dispatcher(), which POSTs through pg_net to
// the internal webhook-dispatcher function with the address and secret kept in Vault. The embedded
// database has neither extension, so the migration skips scheduling there; the Supabase side is
// exercised against stand-ins for Vault and pg_net inside a transaction that is rolled back.
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { client, createTenant } from '../helpers.ts';
import { recordEvent } from './support.ts';

const notices: string[] = [];
const sql = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: (notice) => notices.push(notice.message) });
afterAll(() => sql.end());

class RolledBack extends Error {}

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
  it('skips scheduling with a notice and leaves the migration running', async () => {
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
    expect(notices).toContainEqual(expect.stringMatching(/^pg_cron\/pg_net not available .*left to the local server$/));
    const [{ cron }] = await sql<{ cron: boolean }[]>`select exists (select 1 from pg_namespace where nspname = 'cron') as cron`;
    expect(cron).toBe(false);
  });
});

describe('app.invoke_webhook_dispatcher (Supabase)', () => {
  /** Vault holding `secrets`, and a pg_net whose http_post records its calls. */
  async function standIns(tx: postgres.TransactionSql, secrets: Record<string, string>) {
    await tx`create schema vault`;
    await tx`create table vault.decrypted_secrets (name text, decrypted_secret text)`;
    for (const [name, value] of Object.entries(secrets)) await tx`insert into vault.decrypted_secrets values (${name}, ${value})`;
    await tx`create schema net`;
    await tx`create table net.calls (url text, body jsonb, headers jsonb, timeout_milliseconds integer)`;
    await tx.unsafe(`
      create function net.http_post(url text, body jsonb default '{}', params jsonb default '{}',
                                    headers jsonb default '{}', timeout_milliseconds integer default 5000) returns bigint
      language sql as $$ insert into net.calls values (url, body, headers, timeout_milliseconds) returning 7 $$`);
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

  it('calls nothing and warns while Vault lacks the address or the secret', async () => {
    await dueDelivery();
    await inRolledBackTransaction(async (tx) => {
      await standIns(tx, { webhook_dispatcher_url: 'https://project.supabase.co/functions/v1/webhook-dispatcher' });
      const [{ request }] = await tx<{ request: number | null }[]>`select app.invoke_webhook_dispatcher() as request`;
      expect(request).toBeNull();
      expect(await tx`select * from net.calls`).toEqual([]);
    });
    expect(notices).toContainEqual(expect.stringMatching(/^webhook dispatch skipped: store webhook_dispatcher_url and webhook_dispatcher_secret/));
  });
});
