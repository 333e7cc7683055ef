import type postgres from 'postgres';
import { generateApiKey, keyPrefix, sha256Hex } from '../../shared/keys.ts';
import { scopesOfSide } from '../../shared/http/scopes.ts';
import type { Environment, Side } from '../../shared/db/tenant.ts';
import { coordinatorCommands } from './coordinators.ts';
import { jobCommands } from './jobs.ts';
import { placementCommands } from './placements.ts';
import { liveTestingCommands } from './live-testing.ts';
import { outboxCommands } from './outbox.ts';
import { callCommands } from './calls.ts';
import { ledgerCommands } from './ledger.ts';
import { listenCommands } from './listen.ts';
import { ConsoleError, oneOf, required, uuidOption, type Command, type Options, type RunContext } from './options.ts';

// Operator console commands (CONTRACT §2). Each takes parsed `--name value` options and returns
// the one JSON object the command prints. Staff code: it runs as the database owner, not the API role.
// The option readers and the command shape are options.ts, shared with the command files listed here.

async function findOrg(sql: postgres.Sql, id: string) {
  const [org] = await sql<{ id: string; name: string; side: Side }[]>`select id, name, side from app.organisations where id = ${id}`;
  if (!org) throw new ConsoleError('not_found', `no organisation ${id}`);
  return org;
}

// rate_limit_per_minute is the key's own limit (null: the default of its environment, which
// rate_limit_default shows); the API enforces the first that is set.
const keyColumns = (sql: postgres.Sql) =>
  sql`id, org_id, environment, name, scopes, user_email, key_prefix, rate_limit_per_minute,
      app.default_rate_limit(environment) as rate_limit_default, created_at, last_used_at, revoked_at`;

/** The highest per-minute limit the console sets (the specification's defaults are 600 live, 120 sandbox). */
export const maxRateLimit = 100_000;

export const commands: Record<string, Command> = {
  'org create': {
    usage: 'org create --name NAME --side carrier|provider',
    summary: 'Creates an organisation: a carrier (insurer) or a housing provider.',
    async run(sql, options) {
      const name = required(options, 'name');
      const side = oneOf(options, 'side', ['carrier', 'provider'] as const);
      const [org] = await sql`insert into app.organisations (name, side) values (${name}, ${side}) returning id, name, side`;
      return { data: org };
    },
  },
  'org list': {
    usage: 'org list',
    summary: 'Lists every organisation.',
    async run(sql) {
      const rows = await sql`select id, name, side, created_at from app.organisations order by created_at, id`;
      return { data: rows, count: rows.length };
    },
  },
  'key create': {
    usage: 'key create --org ORG_ID --env live|sandbox [--scopes a,b,c] [--name LABEL] [--user EMAIL]',
    summary: 'Issues an API key; the key is printed once. Without --scopes it gets every scope of the organisation\'s side.',
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
    summary: "Lists an organisation's keys (never the secrets), each with its per-minute limit.",
    async run(sql, options) {
      const org = await findOrg(sql, uuidOption(options, 'org'));
      const rows = await sql`select ${keyColumns(sql)} from app.api_keys where org_id = ${org.id} order by created_at, id`;
      return { data: rows, count: rows.length };
    },
  },
  'key revoke': {
    usage: 'key revoke --id KEY_ID',
    summary: 'Revokes a key at once; the API answers 401 invalid_key for it from then on.',
    async run(sql, options) {
      const id = uuidOption(options, 'id');
      const [row] = await sql`
        update app.api_keys set revoked_at = coalesce(revoked_at, now()) where id = ${id} returning id, revoked_at`;
      if (!row) throw new ConsoleError('not_found', `no key ${id}`);
      return { data: row };
    },
  },
  'key limit': {
    usage: 'key limit --id KEY_ID (--per-minute N | --default)',
    summary: "Raises (or lowers) one key's per-minute rate limit; --default restores its environment's default. Applies from the next request.",
    async run(sql, options) {
      const id = uuidOption(options, 'id');
      const toDefault = options.default !== undefined;
      if (toDefault === (options['per-minute'] !== undefined)) {
        throw new ConsoleError('missing_option', 'give exactly one of --per-minute N or --default');
      }
      let limit: number | null = null;
      if (!toDefault) {
        const text = required(options, 'per-minute');
        limit = /^\d+$/.test(text) ? Number(text) : NaN;
        if (!Number.isInteger(limit) || limit < 1 || limit > maxRateLimit) {
          throw new ConsoleError('invalid_option', `--per-minute must be a whole number from 1 to ${maxRateLimit}`);
        }
      }
      const [row] = await sql`
        update app.api_keys set rate_limit_per_minute = ${limit} where id = ${id}
        returning id, environment, rate_limit_per_minute, app.default_rate_limit(environment) as rate_limit_default,
                  coalesce(rate_limit_per_minute, app.default_rate_limit(environment)) as effective_rate_limit_per_minute, revoked_at`;
      if (!row) throw new ConsoleError('not_found', `no key ${id}`);
      return { data: row };
    },
  },
  ...coordinatorCommands,
  ...placementCommands,
  ...jobCommands,
  ...liveTestingCommands,
  ...outboxCommands,
  ...callCommands,
  ...ledgerCommands,
  ...listenCommands,
};

/** Options that take no value. */
const flags = new Set(['help', 'default', 'print-secret']);
const program = 'npm run --silent admin --';

/** Splits argv into the command words and `--name value` options. */
export function parseArgs(argv: string[]): { words: string[]; options: Options } {
  const words: string[] = [];
  const options: Options = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '-h') {
      options.help = 'true';
    } else if (arg.startsWith('--')) {
      const [name, inline] = arg.slice(2).split(/=(.*)/s, 2);
      if (flags.has(name)) {
        if (inline !== undefined) throw new ConsoleError('invalid_option', `--${name} takes no value`);
        options[name] = 'true';
      } else if (inline !== undefined) options[name] = inline;
      else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) options[name] = argv[++i];
      else throw new ConsoleError('invalid_option', `--${name} needs a value`);
    } else {
      words.push(arg);
    }
  }
  return { words, options };
}

/** The usage text for `help`, `--help` or no command; for one command (or one group) when named. */
export function helpFor(words: string[]): string | undefined {
  const named = words[0] === 'help' ? words.slice(1) : words;
  const matching = Object.keys(commands).filter((name) => named.length === 0 || name === named.join(' ') || name.split(' ')[0] === named.join(' '));
  if (matching.length === 0) return undefined;
  const lines = matching.map((name) => `  ${commands[name].usage}${commands[name].summary ? `\n      ${commands[name].summary}` : ''}`);
  return [
    `Usage: ${program} <command> [--option value ...]`,
    '',
    'Operator console of the Housing Placement Service. Works against DATABASE_URL, or the embedded',
    'database in DATA_DIR (also while the server runs). Prints one JSON object on stdout; an error',
    'exits non-zero with {"error":{"code","message"}} on stderr.',
    '',
    matching.length === 1 ? 'Command:' : 'Commands:',
    ...lines,
    '',
    `Run "${program} help <command>" or "<command> --help" for one command.`,
    '',
  ].join('\n');
}

/**
 * When argv asks for help (`help ...`, `--help`, `-h`, or nothing at all): the text to print, or the
 * unknown_command error when it names no command; undefined when argv is a command to run.
 */
export function helpRequest(argv: string[]): string | ConsoleError | undefined {
  let parsed;
  try {
    parsed = parseArgs(argv);
  } catch {
    return undefined;
  }
  const { words, options } = parsed;
  if (!(words.length === 0 || words[0] === 'help' || options.help !== undefined)) return undefined;
  return helpFor(words) ?? unknownCommand(words.filter((w) => w !== 'help'));
}

function unknownCommand(words: string[]) {
  return new ConsoleError(
    'unknown_command',
    `unknown command "${words.join(' ')}"; known commands: ${Object.keys(commands).join(', ')} (run "${program} help" for usage)`,
  );
}

/** A run that nothing stops and that prints its lines on stdout (in-process callers: tests). */
const untilDone: RunContext = { signal: new AbortController().signal, print: (line) => process.stdout.write(`${line}\n`) };

export async function runCommand(sql: postgres.Sql, argv: string[], context: RunContext = untilDone): Promise<unknown> {
  const { words, options } = parseArgs(argv);
  // One-word commands (`listen`) and two-word ones (`key create`).
  const name = commands[words[0]] && words.length === 1 ? words[0] : words.slice(0, 2).join(' ');
  const command = commands[name];
  if (!command || name.split(' ').length !== words.length) throw unknownCommand(words);
  return command.run(sql, options, context);
}
