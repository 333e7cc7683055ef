import { isUuid } from '../../shared/ids.ts';
import type postgres from 'postgres';
import { ConsoleError, required, uuidOption, type Command, type Options } from './options.ts';

// Coordinators: the service's staff who source homes for a carrier's requests. An organisation's
// coordinator covers its live requests; a request may have its own. Sandbox requests always have the
// sandbox coordinator (see app.coordinator_of), so nobody is assigned to them.

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function emailOption(options: Options): string {
  const email = required(options, 'email').trim().toLowerCase();
  if (!emailPattern.test(email) || email.length > 255) throw new ConsoleError('invalid_option', '--email must be an email address');
  return email;
}

async function assignToOrganisation(sql: postgres.Sql, options: Options) {
  const orgId = uuidOption(options, 'org');
  const email = emailOption(options);
  const [org] = await sql<{ side: string }[]>`select side from app.organisations where id = ${orgId}`;
  if (!org) throw new ConsoleError('not_found', `no organisation ${orgId}`);
  if (org.side !== 'carrier') throw new ConsoleError('invalid_option', '--org must be a carrier organisation');
  const [row] = await sql`
    insert into app.org_coordinators (org_id, email) values (${orgId}, ${email})
    on conflict (org_id) do update set email = excluded.email, assigned_at = clock_timestamp()
    returning org_id, email, assigned_at`;
  return { data: { scope: 'organisation', ...row } };
}

async function assignToRequest(sql: postgres.Sql, options: Options) {
  const reference = required(options, 'request').trim();
  const email = emailOption(options);
  const byId = isUuid(reference);
  const [claim] = await sql<{ id: string; environment: string }[]>`
    select id, environment from app.claims where ${byId ? sql`id = ${reference}` : sql`claim_ref = ${reference.toUpperCase()}`}`;
  if (!claim) throw new ConsoleError('not_found', `no housing request ${reference}`);
  if (claim.environment === 'sandbox') {
    throw new ConsoleError('invalid_option', 'sandbox requests always have the sandbox coordinator; assign people to live requests');
  }
  const [row] = await sql`
    update app.claims set coordinator_email = ${email} where id = ${claim.id}
    returning id as request_id, claim_ref, coordinator_email as email, updated_at as assigned_at`;
  return { data: { scope: 'request', ...row } };
}

export const coordinatorCommands: Record<string, Command> = {
  'coordinator assign': {
    usage: 'coordinator assign (--org ORG_ID | --request CLAIM_REF_OR_ID) --email EMAIL',
    summary: "Assigns the staff member who sources homes: for every live request of a carrier (--org) or for one request.",
    async run(sql, options) {
      if ((options.org === undefined) === (options.request === undefined)) {
        throw new ConsoleError('missing_option', 'give exactly one of --org or --request');
      }
      return options.org !== undefined ? assignToOrganisation(sql, options) : assignToRequest(sql, options);
    },
  },
};
