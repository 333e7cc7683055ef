import type postgres from 'postgres';
import { ConsoleError, required, uuidOption, type Command } from './options.ts';

// Placement set-up an operator does: linking a live carrier organisation to its billing account
// (without one its live placements are refused with no_billing_account), and the address the service
// writes to an organisation (landlord notices; the carrier team's lease signature).

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

async function organisation(sql: postgres.Sql, id: string) {
  const [org] = await sql<{ side: string }[]>`select side from app.organisations where id = ${id}`;
  if (!org) throw new ConsoleError('not_found', `no organisation ${id}`);
  return org;
}

export const placementCommands: Record<string, Command> = {
  'billing link': {
    usage: 'billing link --org ORG_ID --account ACCOUNT_REF',
    async run(sql, options) {
      const orgId = uuidOption(options, 'org');
      const account = required(options, 'account').trim();
      if (account.length > 255) throw new ConsoleError('invalid_option', '--account is at most 255 characters');
      if ((await organisation(sql, orgId)).side !== 'carrier') throw new ConsoleError('invalid_option', '--org must be a carrier organisation');
      const [row] = await sql`
        insert into app.carrier_billing_accounts (org_id, account_ref) values (${orgId}, ${account})
        on conflict (org_id) do update set account_ref = excluded.account_ref, linked_at = clock_timestamp()
        returning org_id, account_ref, linked_at`;
      return { data: row };
    },
  },
  'org contact': {
    usage: 'org contact --org ORG_ID --email EMAIL',
    async run(sql, options) {
      const orgId = uuidOption(options, 'org');
      const email = required(options, 'email').trim().toLowerCase();
      if (!emailPattern.test(email) || email.length > 255) throw new ConsoleError('invalid_option', '--email must be an email address');
      await organisation(sql, orgId);
      const [row] = await sql`update app.organisations set contact_email = ${email} where id = ${orgId} returning id, name, side, contact_email`;
      return { data: row };
    },
  },
};
