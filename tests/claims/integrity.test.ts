// The database keeps a request's rows with their request: a home, document or sourcing round
// filed under another organisation or environment than its request is refused, whatever the code does.
import { describe, expect, it } from 'vitest';
import { ownerSql } from '../helpers.ts';
import { carrier, insertHome, openClaim, provider } from './fixtures.ts';

describe('rows of a request stay in its tenant', () => {
  it('refuses a home on a request under another organisation or environment', async () => {
    const c = await carrier();
    const other = await carrier();
    const made = await openClaim(c.liveApi);
    const home = await insertHome(await provider());
    const put = (orgId: string, environment: string) => ownerSql()`
      insert into app.claim_options (org_id, environment, claim_id, property_id, option_status)
      values (${orgId}, ${environment}, ${made.id}, ${home}, 'sent')`;
    await expect(put(other.orgId, 'live')).rejects.toThrow(/foreign key/);
    await expect(put(c.orgId, 'sandbox')).rejects.toThrow(/foreign key/);
    await expect(put(c.orgId, 'live')).resolves.toBeDefined();
  });

  it('refuses a sourcing round of another tenant', async () => {
    const c = await carrier();
    const other = await carrier();
    const made = await openClaim(c.liveApi);
    await expect(ownerSql()`
      insert into app.sourcing_rounds (org_id, environment, claim_id, trigger, matches_found, crawl_postcode, crawl_request)
      values (${other.orgId}, 'live', ${made.id}, 'source_more', 0, '10001', '{}')`).rejects.toThrow(/foreign key/);
  });
});
