import { isUuid } from '../../shared/ids.ts';
import type postgres from 'postgres';
import { generateApiKey, keyPrefix, sha256Hex } from '../../shared/keys.ts';
import { scopesOfSide } from '../../shared/http/scopes.ts';
import type { Environment, Side } from '../../shared/db/tenant.ts';
import { coordinatorCommands } from './coordinators.ts';
import { placementCommands } from './placements.ts';

// Operator console commands (CONTRACT §2). Each takes parsed `--name value` options and returns
// the one JSON object the command prints. Staff code: it runs as the database owner, not the API role.

export class ConsoleError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

export type Options = Record<string, string | undefined>;

export interface Command {
  usage: string;
  run: (sql: postgres.Sql, options: Options) => Promise<unknown>;
}

export function required(options: Options, name: string): string {
  const value = options[name];
  if (value === undefined || value === '') throw new ConsoleError('missing_option', `--${name} is required`);
  return value;
}

export function oneOf<T extends string>(options: Options, name: string, allowed: readonly T[]): T {
  const value = required(options, name);
  if (!allowed.includes(value as T)) throw new ConsoleError('invalid_option', `--${name} must be one of ${allowed.join(', ')}`);
  return value as T;
}

export function uuidOption(options: Options, name: string): string {
  const value = required(options, name);
  if (!isUuid(value)) throw new ConsoleError('invalid_option', `--${name} must be an id (uuid)`);
  return value;
}

async function findOrg(sql: postgres.Sql, id: string) {
  const [org] = await sql<{ id: string; name: string; side: Side }[]>`select id, name, side from app.organisations where id = ${id}`;
  if (!org) throw new ConsoleError('not_found', `no organisation ${id}`);
  return org;
}

const keyColumns = (sql: postgres.Sql) =>
  sql`id, org_id, environment, name, scopes, user_email, key_prefix, created_at, last_used_at, revoked_at`;

export const commands: Record<string, Command> = {
  'org create': {
    usage: 'org create --name NAME --side carrier|provider',
    async run(sql, options) {
      const name = required(options, 'name');
      const side = oneOf(options, 'side', ['carrier', 'provider'] as const);
      const [org] = await sql`insert into app.organisations (name, side) values (${name}, ${side}) returning id, name, side`;
      return { data: org };
    },
  },
  'org list': {
    usage: 'org list',
    async run(sql) {
      const rows = await sql`select id, name, side, created_at from app.organisations order by created_at, id`;
      return { data: rows, count: rows.length };
    },
  },
  'key create': {
    usage: 'key create --org ORG_ID --env live|sandbox [--scopes a,b,c] [--name LABEL] [--user EMAIL]',
    async run(sql, options) {
      const org = await findOrg(sql, uuidOption(options, 'org'));
      const environment = oneOf(options, 'env', ['live', 'sandbox'] as const) as Environment;
      const allowed = scopesOfSide(org.side);
      const scopes = options.scopes === undefined
        ? allowed
        : [...new Set(options.scopes.split(',').map((s) => s.trim()).filter(Boolean))];
      const foreign = scopes.filter((s) => !allowed.includes(s));
      if (foreign.length) {
        throw new ConsoleError('invalid_option', `--scopes: ${foreign.join(', ')} not available to a ${org.side} organisation (allowed: ${allowed.join(', ')})`);
      }
      const key = generateApiKey(environment);
      const [row] = await sql<{ id: string }[]>`
        insert into app.api_keys (org_id, environment, key_hash, key_prefix, name, scopes, user_email)
        values (${org.id}, ${environment}, ${await sha256Hex(key)}, ${keyPrefix[environment] + key.slice(7, 11)},
                ${options.name ?? null}, ${scopes}, ${options.user ?? null})
        returning id`;
      return { data: { id: row.id, key, environment, scopes } };
    },
  },
  'key list': {
    usage: 'key list --org ORG_ID',
    async run(sql, options) {
      const org = await findOrg(sql, uuidOption(options, 'org'));
      const rows = await sql`select ${keyColumns(sql)} from app.api_keys where org_id = ${org.id} order by created_at, id`;
      return { data: rows, count: rows.length };
    },
  },
  'key revoke': {
    usage: 'key revoke --id KEY_ID',
    async run(sql, options) {
      const id = uuidOption(options, 'id');
      const [row] = await sql`
        update app.api_keys set revoked_at = coalesce(revoked_at, now()) where id = ${id} returning id, revoked_at`;
      if (!row) throw new ConsoleError('not_found', `no key ${id}`);
      return { data: row };
    },
  },
  ...coordinatorCommands,
  ...placementCommands,
};

/** Splits argv into the command words and `--name value` options. */
export function parseArgs(argv: string[]): { words: string[]; options: Options } {
  const words: string[] = [];
  const options: Options = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg.startsWith('--')) {
      const [name, inline] = arg.slice(2).split(/=(.*)/s, 2);
      if (inline !== undefined) options[name] = inline;
      else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) options[name] = argv[++i];
      else throw new ConsoleError('invalid_option', `--${name} needs a value`);
    } else {
      words.push(arg);
    }
  }
  return { words, options };
}

export async function runCommand(sql: postgres.Sql, argv: string[]): Promise<unknown> {
  const { words, options } = parseArgs(argv);
  const name = words.slice(0, 2).join(' ');
  const command = commands[name];
  if (!command || words.length !== 2) {
    throw new ConsoleError('unknown_command', `unknown command "${words.join(' ')}"; commands: ${Object.values(commands).map((c) => c.usage).join(' | ')}`);
  }
  return command.run(sql, options);
}
