import { existsSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { timelineSources } from '../../functions/claims/timeline.ts';
import { call, ownerSql } from '../helpers.ts';
import { at, carrier, insertHome, openClaim, pdfBytes, provider, spot, upload, useTemporaryDataDir } from './fixtures.ts';

const here = spot(5, 0);
beforeAll(useTemporaryDataDir);

describe('GET /claims/{reference}/timeline', () => {
  it('starts with request.opened and counts whole days open', async () => {
    const c = await carrier();
    const made = await openClaim(c.liveApi, { ...at(here), external_id: 'T-1' });
    const res = await c.liveApi.get(`/claims/${made.claim_ref}/timeline`);
    expect(res.status).toBe(200);
    const [row] = await ownerSql()`select created_at from app.claims where id = ${made.id}`;
    expect(res.body).toEqual({
      reference: made.claim_ref,
      opened_at: row.created_at.toISOString(),
      days_open: 0,
      count: 1,
      data: [{
        at: row.created_at.toISOString(), type: 'request.opened', summary: `Housing request ${made.claim_ref} opened.`,
        detail: { reference: made.claim_ref, external_id: 'T-1' },
      }],
    });
  });

  it('is assembled from existing timestamps: an old request shows its documents and homes in order', async () => {
    const c = await carrier();
    const made = await openClaim(c.liveApi, at(here));
    const document = (await c.liveApi.post(`/claims/${made.id}/documents`, upload(pdfBytes, 'policy.pdf', { kind: 'policy' }))).body.data;
    const home = await insertHome(await provider(), { latitude: spot(5, 1).lat, longitude: spot(5, 1).lng });
    // The request opened ten days ago; the home went on it three days ago, the document arrived today.
    await ownerSql()`update app.claims set created_at = now() - interval '10 days 1 hour' where id = ${made.id}`;
    await ownerSql()`
      insert into app.claim_options (org_id, environment, claim_id, property_id, option_status, added_at)
      values (${c.orgId}, 'live', ${made.id}, ${home}, 'sent', now() - interval '3 days')`;

    const res = await c.liveApi.get(`/claims/${made.id}/timeline`);
    expect(res.body.days_open).toBe(10);
    expect(res.body.count).toBe(3);
    expect(res.body.data.map((e: any) => e.type)).toEqual(['request.opened', 'home.added', 'document.added']);
    expect(res.body.data[1]).toEqual({
      at: expect.any(String), type: 'home.added', summary: 'Home put on the request.', property_id: home, detail: { option_status: 'sent' },
    });
    expect(res.body.data[2]).toEqual({
      at: document.created_at, type: 'document.added', summary: 'Document "policy.pdf" (policy) added through the API.',
      detail: { document_id: document.id, kind: 'policy', filename: 'policy.pdf', via_api: true },
    });
    const times = res.body.data.map((e: any) => e.at);
    expect([...times].sort()).toEqual(times);
  });

  it('records each amendment as request.amended: the changed fields, from/to of the non-personal ones only', async () => {
    const c = await carrier();
    const made = await openClaim(c.liveApi, { ...at(here), max_budget: 3000, household_email: 'old@example.com' });
    const personal = {
      household_email: 'family.new@example.com', household_phone: '+1 512 555 0100', adjuster_name: 'Jo Adjuster',
      adjuster_email: 'jo@carrier.example', adjuster_phone: '512-555-0101', accessibility_needs: ['wheelchair_accessible'],
    };
    expect((await c.liveApi.patch(`/claims/${made.id}`, { bedrooms: 3, max_budget: 3200.5, priority: 'urgent', ...personal })).status).toBe(200);
    expect((await c.liveApi.patch(`/claims/${made.id}`, { has_pets: true, number_of_pets: 1, pet_details: 'Rex, a calm dog', pet_breeds: ['beagle'] })).status).toBe(200);
    // Sending values the request already has changes nothing and records nothing.
    expect((await c.liveApi.patch(`/claims/${made.id}`, { bedrooms: 3, household_email: 'family.new@example.com' })).status).toBe(200);
    expect((await c.liveApi.patch(`/claims/${made.id}`, { has_pets: false })).status).toBe(200);

    const res = await c.liveApi.get(`/claims/${made.id}/timeline`);
    const amended = res.body.data.filter((e: any) => e.type === 'request.amended');
    expect(amended).toHaveLength(3);
    expect(amended[0]).toEqual({
      at: expect.any(String), type: 'request.amended',
      summary: 'Request amended: max_budget, priority, household_email, household_phone, adjuster_name, adjuster_email, adjuster_phone, bedrooms, accessibility_needs.',
      detail: {
        fields: ['max_budget', 'priority', 'household_email', 'household_phone', 'adjuster_name', 'adjuster_email', 'adjuster_phone', 'bedrooms', 'accessibility_needs'],
        changes: { max_budget: { from: 3000, to: 3200.5 }, priority: { from: 'standard', to: 'urgent' }, bedrooms: { from: 2, to: 3 } },
      },
    });
    expect(amended[1].detail).toEqual({
      fields: ['has_pets', 'number_of_pets', 'pet_details', 'pet_breeds'],
      changes: { has_pets: { from: false, to: true }, number_of_pets: { from: null, to: 1 }, pet_breeds: { from: null, to: ['beagle'] } },
    });
    // Withdrawing pets lists the detail it cleared.
    expect(amended[2].detail.fields).toEqual(['has_pets', 'number_of_pets', 'pet_details', 'pet_breeds']);
    // No personal value is in the timeline, nor kept in the amendment records.
    const stored = JSON.stringify(await ownerSql()`select fields, changes from app.claim_amendments where claim_id = ${made.id}`);
    for (const text of [JSON.stringify(res.body), stored]) {
      for (const value of [...Object.values(personal).flat(), 'old@example.com', 'Rex, a calm dog']) expect(text).not.toContain(value);
    }
    const times = res.body.data.map((e: any) => e.at);
    expect([...times].sort()).toEqual(times);
  });

  it('names every entry type in its reference, and has every type of the specification', async () => {
    const types = timelineSources.flatMap((source) => Object.keys(source.summaries));
    const description = (await call('GET', '/openapi.json')).body.paths['/claims/{reference}/timeline'].get.description ?? '';
    const named = new Set(description.match(/\b[a-z_]+\.[a-z_]+\b/g));
    expect(types.filter((type) => !named.has(type))).toEqual([]);
    const specFile = new URL('../../../shared/spec/SPEC.md', import.meta.url);
    if (!existsSync(specFile)) return;
    const spec = readFileSync(specFile, 'utf8');
    const table = spec.slice(spec.indexOf('**GET /claims/{reference}/timeline**')).split('\n\n')[1];
    const specified = table.split('\n').slice(2).flatMap((row) => row.split('|')[1].split(',').map((type) => type.trim()));
    expect(specified.length).toBeGreaterThan(10);
    expect(specified.filter((type) => !types.includes(type))).toEqual([]);
  });

  it('answers 404 for an unknown request', async () => {
    const c = await carrier();
    const res = await c.liveApi.get('/claims/REQ-ZZZZZZ/timeline');
    expect(res.status).toBe(404);
    expect(res.body.error?.code).toBe('not_found');
  });
});
