import { describe, expect, it } from 'vitest';
import { client, createTenant, ownerSql } from '../helpers.ts';
import { completeHome, takeHold } from './fixtures.ts';

async function providerWithHome(overrides: Record<string, unknown> = {}) {
  const tenant = await createTenant('provider');
  const api = client(tenant.live);
  const home = (await api.post('/properties', completeHome(overrides))).body.data;
  return { tenant, api, home };
}

describe('per-home availability', () => {
  it('adds a block (201), lists blocks in date order, and reports manual_blocks', async () => {
    const { api, home } = await providerWithHome({ external_id: 'CAL-1' });
    const late = await api.post('/properties/CAL-1/availability', { start_date: '2027-02-01', end_date: '2027-02-10', reason: 'Renovation' });
    expect(late.status).toBe(201);
    expect(late.body.data).toMatchObject({
      property_id: home.id, start_date: '2027-02-01', end_date: '2027-02-10', reason: 'Renovation', source: 'provider', lease_agreement_id: null,
    });
    const early = await api.post(`/properties/${home.id}/availability`, { start_date: '2027-01-05', end_date: '2027-01-05' });
    expect(early.body.data.reason).toBeNull();

    const list = await api.get('/properties/CAL-1/availability');
    expect(list.status).toBe(200);
    expect(list.body.count).toBe(2);
    expect(list.body.data.map((b: any) => b.id)).toEqual([early.body.data.id, late.body.data.id]);
    expect((await api.get(`/properties/${home.id}`)).body.data.availability_via).toEqual(['complete_profile', 'manual_blocks', 'available_dates']);
  });

  it('filters blocks touching a window (inclusive dates)', async () => {
    const { api, home } = await providerWithHome();
    await api.post(`/properties/${home.id}/availability`, { start_date: '2027-01-01', end_date: '2027-01-10' });
    await api.post(`/properties/${home.id}/availability`, { start_date: '2027-03-01', end_date: '2027-03-10' });
    const res = await api.get(`/properties/${home.id}/availability?from=2027-01-10&to=2027-02-28`);
    expect(res.body.data.map((b: any) => b.start_date)).toEqual(['2027-01-01']);
  });

  it('shows service holds with their lease and refuses to release them (409 not_yours_to_release)', async () => {
    const { api, home } = await providerWithHome();
    const holdId = await takeHold(home.id, 'live', '2027-01-01', '2027-03-31');
    const list = await api.get(`/properties/${home.id}/availability`);
    expect(list.body.data[0]).toMatchObject({ id: holdId, source: 'service', lease_agreement_id: expect.any(String) });
    const res = await api.post(`/properties/${home.id}/availability/${holdId}/release`);
    expect(res.status).toBe(409);
    expect(res.body.error?.code).toBe('not_yours_to_release');
    expect((await api.get(`/properties/${home.id}/availability`)).body.count).toBe(1);
  });

  it("a sandbox request's hold on a real home is invisible to the live key: not listed, and 404 on release", async () => {
    const { api, home } = await providerWithHome();
    const sandboxHold = await takeHold(home.id, 'sandbox', '2027-01-01', '2027-03-31');
    expect((await api.get(`/properties/${home.id}/availability`)).body.data).toEqual([]);
    const res = await api.post(`/properties/${home.id}/availability/${sandboxHold}/release`);
    expect(res.status).toBe(404);
    expect(res.body.error?.code).toBe('not_found');
    expect((await api.get(`/properties/${home.id}`)).body.data.availability_via).toEqual(['complete_profile', 'available_dates']);
  });

  it('releases a provider block, then 404 for it', async () => {
    const { api, home } = await providerWithHome({ external_id: 'REL' });
    const block = (await api.post('/properties/REL/availability', { start_date: '2027-01-01', end_date: '2027-01-02' })).body.data;
    const res = await api.post(`/properties/REL/availability/${block.id}/release`);
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(block.id);
    expect((await api.get(`/properties/${home.id}/availability`)).body.count).toBe(0);
    const again = await api.post(`/properties/${home.id}/availability/${block.id}/release`);
    expect(again.status).toBe(404);
    expect(again.body.error?.code).toBe('not_found');
  });

  it('404 for a block of another home, or a block id that is not an id', async () => {
    const { api, home } = await providerWithHome();
    const other = (await api.post('/properties', completeHome())).body.data;
    const block = (await api.post(`/properties/${other.id}/availability`, { start_date: '2027-01-01', end_date: '2027-01-02' })).body.data;
    expect((await api.post(`/properties/${home.id}/availability/${block.id}/release`)).status).toBe(404);
    expect((await api.post(`/properties/${home.id}/availability/nope/release`)).status).toBe(404);
  });

  it.each([
    [{ start_date: '2027-01-10', end_date: '2027-01-09' }, 'end_date'],
    [{ start_date: '2027-13-01', end_date: '2027-01-09' }, 'start_date'],
    [{ end_date: '2027-01-09' }, 'start_date'],
    [{ start_date: '2027-01-01', end_date: '2027-01-09', note: 'x' }, 'note'],
  ])('refuses %j (422 on %s)', async (body, field) => {
    const { api, home } = await providerWithHome();
    const res = await api.post(`/properties/${home.id}/availability`, body);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'invalid_field', field });
  });

  it('refuses a window bound that is not a date (422 on from/to)', async () => {
    const { api, home } = await providerWithHome();
    for (const field of ['from', 'to']) {
      const res = await api.get(`/properties/${home.id}/availability?${field}=2027-13-01`);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'invalid_field', field });
    }
  });

  it('404 on an unknown home for GET and POST', async () => {
    const { api } = await providerWithHome();
    expect((await api.get('/properties/NOPE/availability')).status).toBe(404);
    expect((await api.post('/properties/NOPE/availability', { start_date: '2027-01-01', end_date: '2027-01-02' })).status).toBe(404);
  });
});

describe('POST /properties/availability (bulk calendar sync)', () => {
  it('adds blocks across homes by property_id or external_id, marks them calendar_synced', async () => {
    const { api, home } = await providerWithHome({ external_id: 'B-1' });
    const other = (await api.post('/properties', completeHome())).body.data;
    const res = await api.post('/properties/availability', {
      blocks: [
        { external_id: 'B-1', start_date: '2027-01-01', end_date: '2027-01-05', reason: 'Owner stay' },
        { property_id: other.id, start_date: '2027-02-01', end_date: '2027-02-05' },
      ],
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['blocked', 'failed', 'replaced_existing', 'homes_touched', 'results']);
    expect(res.body).toMatchObject({ blocked: 2, failed: 0, replaced_existing: 0, homes_touched: 2 });
    expect(res.body.results[0]).toMatchObject({ index: 0, external_id: 'B-1', ref: 'B-1', ok: true, property_id: home.id, block_id: expect.any(String) });
    expect(res.body.results[1]).toMatchObject({ index: 1, external_id: null, ref: other.id, ok: true, property_id: other.id });
    const after = (await api.get('/properties/B-1')).body.data;
    expect(after.availability_via).toEqual(['complete_profile', 'calendar_synced', 'manual_blocks', 'available_dates']);
    expect(after.verified_via).toBe('calendar_synced');
    expect(after.calendar_synced_at).toEqual(expect.any(String));
  });

  it('without replace a retry duplicates the blocks', async () => {
    const { api, home } = await providerWithHome();
    const body = { blocks: [{ property_id: home.id, start_date: '2027-01-01', end_date: '2027-01-05' }] };
    await api.post('/properties/availability', body);
    await api.post('/properties/availability', body);
    expect((await api.get(`/properties/${home.id}/availability`)).body.count).toBe(2);
  });

  it('with an Idempotency-Key a retry without replace replays the first answer instead of duplicating', async () => {
    const { api, home } = await providerWithHome();
    const body = { blocks: [{ property_id: home.id, start_date: '2027-01-01', end_date: '2027-01-05' }] };
    const first = await api.post('/properties/availability', body, { 'Idempotency-Key': 'cal-1' });
    const second = await api.post('/properties/availability', body, { 'Idempotency-Key': 'cal-1' });
    expect(second.text).toBe(first.text);
    expect((await api.get(`/properties/${home.id}/availability`)).body.count).toBe(1);
  });

  it('replace clears only the provider blocks of the named homes; service holds and other homes survive', async () => {
    const { api, home } = await providerWithHome();
    const untouched = (await api.post('/properties', completeHome())).body.data;
    await api.post(`/properties/${home.id}/availability`, { start_date: '2027-01-01', end_date: '2027-01-05' });
    await api.post(`/properties/${home.id}/availability`, { start_date: '2027-01-10', end_date: '2027-01-12' });
    await api.post(`/properties/${untouched.id}/availability`, { start_date: '2027-01-01', end_date: '2027-01-05' });
    const holdId = await takeHold(home.id, 'live', '2027-05-01', '2027-08-01');
    // The same home's sandbox calendar (a sandbox hold on a real home) is another environment's.
    const sandboxHoldId = await takeHold(home.id, 'sandbox', '2027-09-01', '2027-10-01');

    const res = await api.post('/properties/availability', {
      replace: true,
      blocks: [
        { property_id: home.id, start_date: '2027-02-01', end_date: '2027-02-03' },
        { property_id: home.id, start_date: '2027-03-01', end_date: '2027-03-03' },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ blocked: 2, failed: 0, replaced_existing: 2, homes_touched: 1 });
    const blocks = (await api.get(`/properties/${home.id}/availability`)).body.data;
    expect(blocks.map((b: any) => [b.start_date, b.source])).toEqual([
      ['2027-02-01', 'provider'],
      ['2027-03-01', 'provider'],
      ['2027-05-01', 'service'],
    ]);
    expect(blocks[2].id).toBe(holdId);
    expect((await api.get(`/properties/${untouched.id}/availability`)).body.count).toBe(1);
    const [sandboxHold] = await ownerSql()`select id from app.availability_blocks where id = ${sandboxHoldId}`;
    expect(sandboxHold).toBeDefined();
  });

  it('a retry with replace leaves the calendar as sent, not duplicated', async () => {
    const { api, home } = await providerWithHome();
    const body = { replace: true, blocks: [{ property_id: home.id, start_date: '2027-01-01', end_date: '2027-01-05' }] };
    await api.post('/properties/availability', body);
    const second = await api.post('/properties/availability', body);
    expect(second.body.replaced_existing).toBe(1);
    expect((await api.get(`/properties/${home.id}/availability`)).body.count).toBe(1);
  });

  it('refuses bad items with reasons (207) and applies the rest; a refused item clears nothing', async () => {
    const { api, home } = await providerWithHome({ external_id: 'MIX' });
    const other = (await api.post('/properties', completeHome({ external_id: 'OTHER' }))).body.data;
    await api.post(`/properties/${home.id}/availability`, { start_date: '2026-12-20', end_date: '2026-12-22' });
    const kept = (await api.post(`/properties/${other.id}/availability`, { start_date: '2026-12-24', end_date: '2026-12-26' })).body.data;
    const res = await api.post('/properties/availability', {
      replace: true,
      blocks: [
        { external_id: ' MIX ', start_date: '2027-01-01', end_date: '2027-01-05' },
        { external_id: 'GHOST', start_date: '2027-01-01', end_date: '2027-01-05' },
        { property_id: crypto.randomUUID(), start_date: '2027-01-01', end_date: '2027-01-05' },
        { external_id: 'OTHER', start_date: '2027-01-09', end_date: '2027-01-05' },
        { start_date: '2027-01-01', end_date: '2027-01-05' },
        { external_id: 'MIX', property_id: home.id, start_date: '2027-01-01', end_date: '2027-01-05' },
        { property_id: 'not-a-uuid', start_date: '2027-01-01', end_date: '2027-01-05' },
        42,
        { external_id: 'MIX', start_date: 'soon', end_date: '2027-01-05' },
      ],
    });
    expect(res.status).toBe(207);
    expect(res.body).toMatchObject({ blocked: 1, failed: 8, replaced_existing: 1, homes_touched: 1 });
    const r = res.body.results;
    expect(r.map((item: any) => item.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(r[0]).toMatchObject({ ok: true, external_id: 'MIX', ref: 'MIX', property_id: home.id });
    expect(r[1]).toMatchObject({ ok: false, external_id: 'GHOST', ref: 'GHOST', property_id: null, error: { code: 'not_found', field: 'external_id' } });
    expect(r[2]).toMatchObject({ ok: false, external_id: null, property_id: null, error: { code: 'not_found', field: 'property_id' } });
    expect(r[3]).toMatchObject({ ok: false, ref: 'OTHER', property_id: other.id, error: { code: 'invalid_field', field: 'end_date' } });
    expect(r[4]).toMatchObject({ ok: false, ref: null, error: { code: 'invalid_field', field: 'property_id' } });
    expect(r[5]).toMatchObject({ ok: false, error: { code: 'invalid_field', field: 'property_id' } });
    expect(r[6]).toMatchObject({ ok: false, error: { code: 'invalid_field', field: 'property_id' } });
    expect(r[7]).toMatchObject({ ok: false, external_id: null, ref: null, error: { code: 'invalid_field', message: expect.stringMatching(/^The item: /) } });
    expect(r[7].error).not.toHaveProperty('field');
    expect(r[8]).toMatchObject({ ok: false, ref: 'MIX', property_id: home.id, error: { code: 'invalid_field', field: 'start_date' } });
    // The home with an accepted block was replaced; the home whose only block was refused kept its calendar.
    expect((await api.get(`/properties/${home.id}/availability`)).body.data.map((b: any) => b.start_date)).toEqual(['2027-01-01']);
    expect((await api.get(`/properties/${other.id}/availability`)).body.data.map((b: any) => b.id)).toEqual([kept.id]);
    expect((await api.get(`/properties/${other.id}`)).body.data.calendar_synced_at).toBeNull();
  });

  it('a NUL character in a reference or reason refuses that block only', async () => {
    const { api, home } = await providerWithHome();
    const res = await api.post('/properties/availability', {
      blocks: [
        { property_id: home.id, start_date: '2027-01-01', end_date: '2027-01-02' },
        { external_id: 'UNIT\u0000', start_date: '2027-01-01', end_date: '2027-01-02' },
        { property_id: home.id, start_date: '2027-01-01', end_date: '2027-01-02', reason: 'a\u0000' },
      ],
    });
    expect(res.status).toBe(207);
    expect(res.body).toMatchObject({ blocked: 1, failed: 2 });
    expect(res.body.results[1]).toMatchObject({ ok: false, property_id: null, error: { code: 'invalid_field', field: 'external_id' } });
    expect(res.body.results[2]).toMatchObject({ ok: false, error: { code: 'invalid_field', field: 'reason' } });
    const single = await api.post(`/properties/${home.id}/availability`, { start_date: '2027-01-01', end_date: '2027-01-02', reason: '\u0000' });
    expect(single.status).toBe(422);
    expect(single.body.error).toMatchObject({ code: 'invalid_field', field: 'reason' });
  });

  it('a call whose every block is refused answers 422 with the batch result and changes nothing', async () => {
    const { api, home } = await providerWithHome();
    const kept = (await api.post(`/properties/${home.id}/availability`, { start_date: '2027-01-01', end_date: '2027-01-02' })).body.data;
    const res = await api.post('/properties/availability', { replace: true, blocks: [{ property_id: home.id, start_date: '2027-02-02', end_date: '2027-02-01' }] });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ blocked: 0, failed: 1, replaced_existing: 0, homes_touched: 0 });
    expect(res.body.results[0]).toMatchObject({ index: 0, ok: false, error: { code: 'invalid_field', field: 'end_date' } });
    expect((await api.get(`/properties/${home.id}/availability`)).body.data.map((b: any) => b.id)).toEqual([kept.id]);
  });

  it('concurrent replaces of one home run one after the other: the calendar ends as one of them sent it', async () => {
    const { api, home } = await providerWithHome();
    const sync = (month: string) =>
      api.post('/properties/availability', { replace: true, blocks: [{ property_id: home.id, start_date: `2027-${month}-01`, end_date: `2027-${month}-02` }] });
    for (let round = 0; round < 5; round++) {
      const responses = await Promise.all(['01', '02', '03', '04'].map(sync));
      expect(responses.map((r) => r.status)).toEqual([201, 201, 201, 201]);
      expect((await api.get(`/properties/${home.id}/availability`)).body.count).toBe(1);
    }
  });

  it('a calendar sync and a batch publish of the same homes at the same time both succeed (no deadlock)', async () => {
    const { api } = await providerWithHome();
    const refs = Array.from({ length: 40 }, (_, i) => `LOCK-${String(i).padStart(2, '0')}`);
    const homes = refs.map((ref) => completeHome({ external_id: ref }));
    await api.post('/properties/batch', { properties: homes });
    const blocks = refs.map((ref) => ({ external_id: ref, start_date: '2027-01-01', end_date: '2027-01-02' }));
    for (let round = 0; round < 3; round++) {
      const [sync, publish] = await Promise.all([
        api.post('/properties/availability', { replace: true, blocks: [...blocks].reverse() }),
        api.post('/properties/batch', { properties: homes }),
      ]);
      expect([sync.status, publish.status]).toEqual([201, 200]);
    }
  });

  it('accepts 500 blocks in one call and refuses 501 or none', async () => {
    const { api, home } = await providerWithHome();
    const blocks = Array.from({ length: 500 }, (_, i) => ({ property_id: home.id, start_date: '2027-01-01', end_date: '2027-01-02', reason: `r${i}` }));
    const ok = await api.post('/properties/availability', { blocks });
    expect(ok.status).toBe(201);
    expect(ok.body.blocked).toBe(500);
    const tooMany = await api.post('/properties/availability', { blocks: [...blocks, blocks[0]] });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.error).toMatchObject({ code: 'invalid_field', field: 'blocks' });
    expect((await api.post('/properties/availability', { blocks: [] })).status).toBe(422);
    expect((await api.post('/properties/availability', { replace: 'yes', blocks: blocks.slice(0, 1) })).body.error?.field).toBe('replace');
  });
});

describe('calendar rules in the database', () => {
  it('service holds of one environment never overlap; provider blocks may; environments are apart', async () => {
    const { api, home } = await providerWithHome();
    expect(await takeHold(home.id, 'live', '2027-01-01', '2027-01-31')).toEqual(expect.any(String));
    // Inclusive end: a hold starting on the last day of another overlaps.
    expect(await takeHold(home.id, 'live', '2027-01-31', '2027-02-28')).toBeNull();
    expect(await takeHold(home.id, 'live', '2027-02-01', '2027-02-28')).toEqual(expect.any(String));
    expect(await takeHold(home.id, 'sandbox', '2027-01-01', '2027-01-31')).toEqual(expect.any(String));
    await expect(ownerSql()`
      insert into app.availability_blocks (property_id, org_id, environment, start_date, end_date, source, lease_agreement_id)
      select id, org_id, 'live', '2027-01-15', '2027-01-20', 'service', gen_random_uuid() from app.properties where id = ${home.id}`,
    ).rejects.toThrow(/availability_service_holds_disjoint/);
    await api.post(`/properties/${home.id}/availability`, { start_date: '2027-06-01', end_date: '2027-06-10' });
    await api.post(`/properties/${home.id}/availability`, { start_date: '2027-06-05', end_date: '2027-06-15' });
    // A provider block makes the range not free for a hold.
    expect(await takeHold(home.id, 'live', '2027-06-10', '2027-07-10')).toBeNull();
    // The live calendar shows none of the sandbox hold.
    const live = (await api.get(`/properties/${home.id}/availability`)).body.data;
    expect(live.filter((b: any) => b.source === 'service')).toHaveLength(2);
  });

  it('a live hold on a test home is refused by the database; a sandbox hold on a real home is taken', async () => {
    const tenant = await createTenant('provider');
    const testHome = (await client(tenant.sandbox).post('/properties', completeHome())).body.data;
    await expect(takeHold(testHome.id, 'live', '2027-01-01', '2027-01-31')).rejects.toThrow(/live hold cannot be taken on a sandbox home/);
    expect(await takeHold(testHome.id, 'sandbox', '2027-01-01', '2027-01-31')).toEqual(expect.any(String));
    const { home } = await providerWithHome();
    expect(await takeHold(home.id, 'sandbox', '2027-01-01', '2027-01-31')).toEqual(expect.any(String));
  });

  it('range_is_free looks at every block of the environment only', async () => {
    const { api, home } = await providerWithHome();
    await api.post(`/properties/${home.id}/availability`, { start_date: '2027-01-10', end_date: '2027-01-20' });
    const free = async (env: string, start: string, end: string) =>
      (await ownerSql()`select app.range_is_free(${home.id}, ${env}, ${start}::date, ${end}::date) as free`)[0].free;
    expect(await free('live', '2027-01-01', '2027-01-09')).toBe(true);
    expect(await free('live', '2027-01-01', '2027-01-10')).toBe(false);
    expect(await free('live', '2027-01-20', '2027-02-01')).toBe(false);
    expect(await free('live', '2027-01-21', '2027-02-01')).toBe(true);
    expect(await free('sandbox', '2027-01-01', '2027-02-01')).toBe(true);
  });

  it('a hold checked in one transaction waits for a concurrent provider block and then sees it', async () => {
    const { home } = await providerWithHome();
    const [{ org_id: orgId }] = await ownerSql()`select org_id from app.properties where id = ${home.id}`;
    let releaseBlock!: () => void;
    const blockCommitted = new Promise<void>((resolve) => (releaseBlock = resolve));
    let blockInserted!: () => void;
    const inserted = new Promise<void>((resolve) => (blockInserted = resolve));
    const provider = ownerSql().begin(async (tx) => {
      await tx`insert into app.availability_blocks (property_id, org_id, environment, start_date, end_date, source)
               values (${home.id}, ${orgId}, 'live', '2027-04-01', '2027-04-05', 'provider')`;
      blockInserted();
      await blockCommitted;
    });
    await inserted;
    const hold = takeHold(home.id, 'live', '2027-04-03', '2027-05-03');
    // The hold is waiting on the home's row while the provider's transaction is open.
    const early = await Promise.race([hold.then(() => 'done'), new Promise((r) => setTimeout(() => r('waiting'), 100))]);
    expect(early).toBe('waiting');
    releaseBlock();
    await provider;
    expect(await hold).toBeNull();
  });
});
