import type postgres from 'postgres';
import { isUuid } from '../../shared/ids.ts';

// What every console command file shares: the command's shape, its parsed options, the readers that
// check them, and the error a command refuses with (printed as {"error": {code, message}}).

export class ConsoleError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

export type Options = Record<string, string | undefined>;

/**
 * What a command that runs until stopped (`listen`) needs besides its options: the signal that
 * stops it (Ctrl-C, SIGTERM) and a way to print a line as it goes, before the one object it ends with.
 */
export interface RunContext {
  signal: AbortSignal;
  print: (line: string) => void;
}

export interface Command {
  usage: string;
  /** One line for `help`: what the command does (optional, so a command is never refused for lacking one). */
  summary?: string;
  run: (sql: postgres.Sql, options: Options, context: RunContext) => Promise<unknown>;
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

/** `--limit`: how many rows a listing prints, 50 unless given, from 1 to 1000. */
export function limitOption(options: Options): number {
  const limit = Number(options.limit ?? 50);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new ConsoleError('invalid_option', '--limit must be an integer from 1 to 1000');
  return limit;
}
