// The database keeps a home's blocks, bookings and payments with the home's owner, whatever the code does.
import { describe, expect, it } from 'vitest';
import { client, createTenant, ownerSql } from '../helpers.ts';

const home = {
  address: '1 Owner Way', city: 'Austin', state: 'TX', zip_code: '78701', monthly_rate: 2000, bedrooms: 2, bathrooms: 1,
};

describe("a home's rows stay with its owner", () => {
  it('refuses a block or a booking filed under another organisation', async () => {
    const owner = await createTenant('provider');
    const other = await createTenant('provider');
    const id = (await client(owner.live).post('/properties', home)).body.data.id;
    const block = (orgId: string) => ownerSql()`
      insert into app.availability_blocks (property_id, org_id, environment, start_date, end_date, source)
      values (${id}, ${orgId}, 'live', '2027-01-01', '2027-01-10', 'provider')`;
    await expect(block(other.orgId)).rejects.toThrow(/foreign key/);
    await expect(block(owner.orgId)).resolves.toBeDefined();
    await expect(ownerSql()`
      insert into app.bookings (org_id, environment, property_id, check_in, check_out)
      values (${other.orgId}, 'live', ${id}, '2027-02-01', '2027-04-01')`).rejects.toThrow(/foreign key/);
  });
});
