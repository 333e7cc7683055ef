// Concurrency: two requests racing to place one home, and calls racing for a home's dates. Exactly
// one wins; nothing is half-written.
import { describe, expect, it } from 'vitest';
import { connect } from '../../shared/db/client.ts';
import { openClaim } from '../claims/fixtures.ts';
import { ownerSql } from '../helpers.ts';
import { inDays, scene } from './fixtures.ts';

describe('races', () => {
  it('two requests placing one home at once both place it; racing for overlapping nights, exactly one holds them', async () => {
    const s = await scene();
    const other = await openClaim(s.api);
    for (const ref of [s.ref, other.claim_ref]) await s.api.post(`/claims/${ref}/options/${s.home}/budget`, { approved: true });
    const placed = await Promise.all([s.ref, other.claim_ref].map((ref) => s.api.post(`/claims/${ref}/options`, { property_id: s.home, action: 'place' })));
    expect(placed.map((r) => r.status)).toEqual([200, 200]);
    const dated = await Promise.all([
      s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: inDays(40), move_out: inDays(100) }),
      s.api.post(`/claims/${other.claim_ref}/dates`, { property_id: s.home, move_in: inDays(99), move_out: inDays(140) }),
    ]);
    expect(dated.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(dated.find((r) => r.status === 409)!.body.error?.code).toBe('dates_unavailable');
    const holds = await ownerSql()`select start_date, end_date from app.availability_blocks where property_id = ${s.home} and source = 'service'`;
    expect(holds).toHaveLength(1);
  });

  it('two dates calls with overlapping ranges on one placement: serialised, one live version, one hold, the other superseded', async () => {
    const s = await scene();
    await s.api.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'place', approve_budget: true });
    const results = await Promise.all([
      s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: inDays(40), move_out: inDays(100) }),
      s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: inDays(50), move_out: inDays(110) }),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    const leases = await ownerSql()`
      select l.id, l.status, l.move_in_date from app.lease_agreements l join app.claim_options h on h.id = l.claim_option_id
       where h.property_id = ${s.home} order by l.version`;
    expect(leases.map((l) => l.status)).toEqual(['superseded', 'awaiting_lease']);
    const holds = await ownerSql()`select lease_agreement_id, start_date from app.availability_blocks where property_id = ${s.home} and source = 'service'`;
    expect(holds).toEqual([{ lease_agreement_id: leases[1].id, start_date: leases[1].move_in_date }]);
  });

  it('the same dates sent twice at once issue one version (the retry is the same row)', async () => {
    const s = await scene();
    await s.api.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'place', approve_budget: true });
    const body = { property_id: s.home, move_in: inDays(40), move_out: inDays(100) };
    const [a, b] = await Promise.all([s.api.post(`/claims/${s.ref}/dates`, body), s.api.post(`/claims/${s.ref}/dates`, body)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.data.id).toBe(b.body.data.id);
    expect(await ownerSql()`select 1 from app.lease_agreements where claim_id = ${s.claim.id}`).toHaveLength(1);
  });

  it('two transactions holding overlapping dates of one home through the hold function: exactly one gets it', async () => {
    const s = await scene();
    await s.api.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'place', approve_budget: true });
    await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: inDays(40), move_out: inDays(100) });
    const [lease] = await ownerSql()`select id from app.lease_agreements where claim_id = ${s.claim.id}`;
    await ownerSql()`select app.release_holds(${lease.id}, 'sandbox')`;
    const sql = connect(process.env.DATABASE_URL!, { max: 2 });
    try {
      const hold = (start: number, end: number) => sql.begin(async (tx) => {
        const [row] = await tx`select app.take_hold(${s.home}, 'sandbox', ${inDays(start)}::date, ${inDays(end)}::date, ${lease.id}) as id`;
        await tx`select pg_sleep(0.1)`;
        return row.id as string | null;
      });
      const got = await Promise.all([hold(40, 100), hold(60, 120)]);
      expect(got.filter((id) => id !== null)).toHaveLength(1);
      expect(await ownerSql()`select 1 from app.availability_blocks where property_id = ${s.home} and source = 'service'`).toHaveLength(1);
    } finally {
      await sql.end();
    }
  });
});
