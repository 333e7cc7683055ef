// A refund request's life is appended, never updated in place: each step (asked, approved or
// declined, refunded or failed) is a row of app.refund_request_changes, the request's status is read
// from its last step, and the carrier and the landlord read the whole life as `history`.
// (The duplicate charge's automatic refund: tests/placements/checkout-attempts.test.ts.)
import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sandboxPayments } from '../../shared/placements/ports/sandbox.ts';
import { consoleCommand, ownerSql } from '../helpers.ts';
import { drainJobs } from './fixtures.ts';
import { signedLease } from './payment-fixtures.ts';

type Step = { status: string; at: string };
type Scene = Awaited<ReturnType<typeof signedLease>>;

beforeEach(() => {
  // The scheduler's runs only (drainJobs): each step is read before the next one is taken.
  process.env.JOBS_RUN_AFTER_COMMIT = 'false';
});
afterEach(() => {
  vi.restoreAllMocks();
  delete process.env.JOBS_RUN_AFTER_COMMIT;
});

async function paidStay() {
  const s = await signedLease();
  const paid = await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/payment`, { outcome: 'succeeded' });
  expect(paid.status).toBe(200);
  return s;
}

/** Asks the landlord for a goodwill refund (nothing is owed back on a stay paid as booked). */
async function ask(s: Scene, amount = 100) {
  const asked = await s.api.post(`/claims/${s.ref}/refund-request`, { property_id: s.home, amount, goodwill: true });
  expect(asked.status).toBe(202);
  return asked.body.data as { refund_request_id: string; status: string; history: Step[] };
}

/** The request as the landlord reads it (its list) and as the carrier reads it (the placement's deposit_refunds). */
async function readBack(s: Scene, id: string) {
  type Read = { id: string; status: string; history: Step[]; requested_at: string; decided_at: string | null; refunded_at: string | null };
  const provider = ((await s.providerApi.get('/properties/refund-requests')).body.data as Read[]).find((r) => r.id === id)!;
  const placement = await s.api.get(`/claims/${s.ref}/placement`);
  expect(placement.status).toBe(200);
  const carrier = (placement.body.data.homes as { deposit_refunds: { refund_request_id: string; history: Step[] }[] }[])
    .flatMap((h) => h.deposit_refunds).find((r) => r.refund_request_id === id)!;
  expect(carrier.history).toEqual(provider.history);
  return { provider, carrier };
}

const statuses = (history: Step[]) => history.map((step) => step.status);

/** Steps are in time order, each at or after the one before. */
function inOrder(history: Step[]) {
  const times = history.map((step) => Date.parse(step.at));
  expect(times.every((t) => Number.isFinite(t))).toBe(true);
  expect(times).toEqual([...times].sort((a, b) => a - b));
}

describe('a refund request\'s history', () => {
  it('approved and refunded: asked, approved, refunded, each read back in order with its time', async () => {
    const s = await paidStay();
    const asked = await ask(s);
    expect(asked.history).toEqual([{ status: 'pending_owner_approval', at: expect.any(String) }]);

    const approved = await s.providerApi.post(`/properties/refund-requests/${asked.refund_request_id}`, { decision: 'approve' });
    expect(approved.status).toBe(200);
    expect(statuses(approved.body.data.history)).toEqual(['pending_owner_approval', 'approved']);
    expect(approved.body.data.history[1].at).toBe(approved.body.data.decided_at);

    await drainJobs(s.c.orgId);
    const { provider, carrier } = await readBack(s, asked.refund_request_id);
    expect(provider.status).toBe('refunded');
    expect(statuses(provider.history)).toEqual(['pending_owner_approval', 'approved', 'refunded']);
    inOrder(provider.history);
    // The request's own times are its steps' times.
    expect(provider.history.map((step: Step) => step.at)).toEqual([provider.requested_at, provider.decided_at, provider.refunded_at]);
    expect(carrier).toMatchObject({ status: 'refunded', requested_at: provider.requested_at, refunded_at: provider.refunded_at });
    // Who moved each step, and the processor's refund reference on the step that issued it, stay with staff.
    const rows = await ownerSql()`
      select seq, status, moved_by, provider_ref is not null as has_ref from app.refund_request_changes
       where request_id = ${asked.refund_request_id} order by seq`;
    expect(rows).toEqual([
      { seq: 1, status: 'pending_owner_approval', moved_by: 'carrier', has_ref: false },
      { seq: 2, status: 'approved', moved_by: 'landlord', has_ref: false },
      { seq: 3, status: 'refunded', moved_by: 'processor', has_ref: true },
    ]);
  });

  it('declined: asked, declined; the next request has a life of its own, and a second open one is refused', async () => {
    const s = await paidStay();
    const asked = await ask(s);
    // One open request per home: the history's trigger holds it as the old index did.
    expect((await s.api.post(`/claims/${s.ref}/refund-request`, { property_id: s.home, amount: 10, goodwill: true })).body.error?.code).toBe('refund_pending');
    const declined = await s.providerApi.post(`/properties/refund-requests/${asked.refund_request_id}`, { decision: 'decline' });
    expect(declined.status).toBe(200);
    // A declined request is never approved: its life has ended.
    expect((await s.providerApi.post(`/properties/refund-requests/${asked.refund_request_id}`, { decision: 'approve' })).body.error?.code)
      .toBe('no_refund_request');

    const { provider } = await readBack(s, asked.refund_request_id);
    expect(provider).toMatchObject({ status: 'declined' });
    expect(statuses(provider.history)).toEqual(['pending_owner_approval', 'declined']);
    inOrder(provider.history);
    expect(provider.history[1].at).toBe(provider.decided_at);

    const next = await ask(s, 20);
    expect(statuses(next.history)).toEqual(['pending_owner_approval']);
    expect(statuses((await readBack(s, asked.refund_request_id)).provider.history)).toEqual(['pending_owner_approval', 'declined']);
  });

  it('failed: asked, approved, failed when the processor refused every attempt; a retry that issues it adds refunded', async () => {
    const s = await paidStay();
    const asked = await ask(s);
    expect((await s.providerApi.post(`/properties/refund-requests/${asked.refund_request_id}`, { decision: 'approve' })).status).toBe(200);
    const [job] = await ownerSql()<{ id: string }[]>`
      update app.jobs set max_attempts = 2 where org_id = ${s.c.orgId} and kind = 'issue_refund' returning id`;
    const refused = vi.spyOn(sandboxPayments, 'refund').mockRejectedValue(new Error('the processor is down'));
    vi.spyOn(console, 'error').mockImplementation(() => {});
    await drainJobs(s.c.orgId);
    await ownerSql()`update app.jobs set run_at = now() where id = ${job.id}`;
    await drainJobs(s.c.orgId);
    expect(refused).toHaveBeenCalledTimes(2);

    const failed = (await readBack(s, asked.refund_request_id)).provider;
    expect(failed).toMatchObject({ status: 'failed', refunded_at: null });
    expect(statuses(failed.history)).toEqual(['pending_owner_approval', 'approved', 'failed']);
    inOrder(failed.history);
    // The processor's words are for staff: on the failed step, never in an answer.
    expect(JSON.stringify(failed)).not.toContain('processor is down');
    const [step] = await ownerSql()`
      select moved_by, failure_reason from app.refund_request_changes where request_id = ${asked.refund_request_id} and status = 'failed'`;
    expect(step).toEqual({ moved_by: 'processor', failure_reason: 'Error: the processor is down' });

    // Staff retry it once its cause is fixed: it is issued after all, and that is one more step.
    vi.mocked(sandboxPayments.refund).mockRestore();
    await consoleCommand('job', 'retry', '--id', job.id);
    await drainJobs(s.c.orgId);
    const refunded = (await readBack(s, asked.refund_request_id)).provider;
    expect(refunded.status).toBe('refunded');
    expect(statuses(refunded.history)).toEqual(['pending_owner_approval', 'approved', 'failed', 'refunded']);
    inOrder(refunded.history);
    expect(refunded.history.slice(0, 3)).toEqual(failed.history);
  });

  it('is append-only: the database refuses an update or delete of a step, or of the request as asked, and a step out of order', async () => {
    const s = await paidStay();
    const asked = await ask(s);
    const sql = ownerSql();
    const refusal = (query: Promise<unknown>) => query.then(() => null, (e: { code?: string; message: string; constraint_name?: string }) => e);
    // Even the owner, who bypasses row-level security and grants.
    for (const attempt of [
      sql`update app.refund_request_changes set status = 'approved' where request_id = ${asked.refund_request_id}`,
      sql`update app.refund_request_changes set changed_at = now() - interval '1 day' where request_id = ${asked.refund_request_id}`,
      sql`delete from app.refund_request_changes where request_id = ${asked.refund_request_id}`,
      sql`update app.refund_request_asks set amount_cents = 1 where id = ${asked.refund_request_id}`,
      sql`delete from app.refund_request_asks where id = ${asked.refund_request_id}`,
    ]) {
      expect(await refusal(attempt)).toMatchObject({ code: '55000', message: expect.stringContaining('append-only') });
    }
    // The API's role is granted neither.
    const [grants] = await sql<{ can_update: boolean; can_delete: boolean; ask_update: boolean }[]>`
      select has_table_privilege('svc_api', 'app.refund_request_changes', 'update') as can_update,
             has_table_privilege('svc_api', 'app.refund_request_changes', 'delete') as can_delete,
             has_table_privilege('svc_api', 'app.refund_request_asks', 'update') as ask_update`;
    expect(grants).toEqual({ can_update: false, can_delete: false, ask_update: false });
    // Row-level security: the carrier that asked and the landlord that answers read the steps; no one else.
    const visible = async (org: string) => {
      let n = -1;
      await sql.begin(async (tx) => {
        await tx`select set_config('role', 'svc_api', true), set_config('app.org_id', ${org}, true), set_config('app.env', 'sandbox', true)`;
        [{ n }] = await tx<{ n: number }[]>`
          select (select count(*)::int from app.refund_request_changes where request_id = ${asked.refund_request_id})
               + (select count(*)::int from app.refund_requests where id = ${asked.refund_request_id}) as n`;
      });
      return n;
    };
    const stranger = await signedLease();
    expect([await visible(s.c.orgId), await visible(s.providerOrg), await visible(stranger.c.orgId), await visible(stranger.providerOrg)])
      .toEqual([2, 2, 0, 0]);
    // A step the last one does not lead to is refused: a pending request is not refunded.
    expect(await refusal(sql`
      insert into app.refund_request_changes (request_id, status, moved_by) values (${asked.refund_request_id}, 'refunded', 'processor')`))
      .toMatchObject({ code: '23514', message: expect.stringContaining('pending_owner_approval cannot become refunded') });
    // A second open request on the placement, past the command's check (a writer without the
    // placement's lock), is refused as the old unique index refused it.
    expect(await refusal(sql`
      insert into app.refund_request_asks (org_id, environment, claim_id, claim_option_id, property_id, provider_org_id, payment_id,
                                           amount_cents, currency, covers_deposit)
      select org_id, environment, claim_id, claim_option_id, property_id, provider_org_id, payment_id, 500, currency, false
        from app.refund_request_asks where id = ${asked.refund_request_id}`))
      .toMatchObject({ code: '23505', constraint_name: 'refund_requests_one_open' });
    const [{ n }] = await sql<{ n: number }[]>`select count(*)::int as n from app.refund_request_changes where request_id = ${asked.refund_request_id}`;
    expect(n).toBe(1);
    expect((await readBack(s, asked.refund_request_id)).provider.status).toBe('pending_owner_approval');
  });
});

describe('requests made before their history was kept', () => {
  it('the migration writes each one\'s life from its old columns, once, and each reads the status it had', async () => {
    const s = await paidStay();
    const sql = ownerSql();
    const [payment] = await sql<{ id: string; claim_id: string; claim_option_id: string; property_id: string; org_id: string; currency: string }[]>`
      select p.id, p.claim_id, p.claim_option_id, p.property_id, p.org_id, p.currency
        from app.payments p join app.claims c on c.id = p.claim_id where c.claim_ref = ${s.ref} and p.status = 'succeeded'`;
    const at = (minutes: number) => new Date(Date.UTC(2026, 10, 20, 9, minutes)).toISOString();
    // As the old table held them: status and its times in columns, updated in place.
    const old = [
      { status: 'pending_owner_approval', automatic: false, created_at: at(0), decided_at: null, refunded_at: null, updated_at: at(0), provider_ref: null, failure_reason: null },
      { status: 'approved', automatic: false, created_at: at(1), decided_at: at(2), refunded_at: null, updated_at: at(2), provider_ref: null, failure_reason: null },
      { status: 'declined', automatic: false, created_at: at(3), decided_at: at(4), refunded_at: null, updated_at: at(4), provider_ref: null, failure_reason: null },
      { status: 'refunded', automatic: false, created_at: at(5), decided_at: at(6), refunded_at: at(7), updated_at: at(7), provider_ref: 're_old_1', failure_reason: null },
      { status: 'failed', automatic: false, created_at: at(8), decided_at: at(9), refunded_at: null, updated_at: at(10), provider_ref: null, failure_reason: 'card expired' },
      { status: 'refunded', automatic: true, created_at: at(11), decided_at: at(11), refunded_at: at(12), updated_at: at(12), provider_ref: 're_old_2', failure_reason: null },
    ].map((row) => ({ ...row, id: crypto.randomUUID() }));

    const file = await readFile(new URL('../../migrations/20261128021957_refund_request_changes.sql', import.meta.url), 'utf8');
    const start = file.indexOf('-- Existing requests: their life');
    const backfill = file.slice(start, file.indexOf('do nothing;', start) + 'do nothing;'.length)
      .replace('from app.refund_request_asks r', 'from old_refund_requests r');
    expect(backfill).toContain('from old_refund_requests r');
    await sql.begin(async (tx) => {
      // The asks as they were written then: with the triggers off, no step is written for them, as
      // before the migration; the old columns stand in a table of their own.
      await tx`set local session_replication_role = replica`;
      for (const row of old) {
        await tx`
          insert into app.refund_request_asks (id, org_id, environment, claim_id, claim_option_id, property_id, provider_org_id, payment_id,
                                               amount_cents, currency, covers_deposit, reason, created_at, automatic)
          values (${row.id}, ${s.c.orgId}, 'sandbox', ${payment.claim_id}, ${payment.claim_option_id}, ${payment.property_id}, ${payment.org_id},
                  ${payment.id}, 1000, ${payment.currency}, false, 'before the history', ${row.created_at}, ${row.automatic})`;
      }
      await tx`
        create temp table old_refund_requests on commit drop as
        select a.*, o.status, o.decided_at::timestamptz, o.refunded_at::timestamptz, o.updated_at::timestamptz, o.provider_ref, o.failure_reason
          from app.refund_request_asks a
          join jsonb_to_recordset(${tx.json(old)}) as o (id uuid, status text, decided_at text, refunded_at text, updated_at text,
                                                        provider_ref text, failure_reason text) on o.id = a.id`;
      // Run twice, as at the migration's moment (before the history's own triggers existed): the
      // second run writes nothing.
      await tx.unsafe(backfill);
      await tx.unsafe(backfill);
    });

    const ids = old.map((row) => row.id);
    const read = await sql<{ id: string; status: string; decided_at: Date | null; refunded_at: Date | null; provider_ref: string | null;
      failure_reason: string | null; steps: number }[]>`
      select r.id, r.status, r.decided_at, r.refunded_at, r.provider_ref, r.failure_reason,
             (select count(*)::int from app.refund_request_changes c where c.request_id = r.id) as steps
        from app.refund_requests r where r.id = any(${ids})`;
    const byId = new Map(read.map((row) => [row.id, row]));
    for (const row of old) {
      expect(byId.get(row.id), row.status).toEqual({
        id: row.id,
        status: row.status,
        decided_at: row.decided_at && new Date(row.decided_at),
        refunded_at: row.refunded_at && new Date(row.refunded_at),
        provider_ref: row.provider_ref,
        failure_reason: row.failure_reason,
        steps: { pending_owner_approval: 1, approved: 2, declined: 2, refunded: 3, failed: 3 }[row.status],
      });
    }
    // The landlord reads their lives: the failed one asked, approved, failed at the time it last changed.
    const list = (await s.providerApi.get('/properties/refund-requests?limit=100')).body.data as { id: string; history: Step[] }[];
    const failed = list.find((r) => r.id === old[4].id)!;
    expect(failed.history).toEqual([
      { status: 'pending_owner_approval', at: at(8) }, { status: 'approved', at: at(9) }, { status: 'failed', at: at(10) },
    ]);
    expect(list.find((r) => r.id === old[5].id)!.history).toEqual([
      { status: 'pending_owner_approval', at: at(11) }, { status: 'approved', at: at(11) }, { status: 'refunded', at: at(12) },
    ]);
  });
});
