import { config } from './config.ts';

// Structured JSON logs, one object per line, so log drains can index request ids.
const levels = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
type Level = Exclude<keyof typeof levels, 'silent'>;

/** Whether lines of this level are written (LOG_LEVEL), so that a caller can skip building them. */
export function logs(level: Level): boolean {
  return levels[level] >= (levels[config.logLevel() as keyof typeof levels] ?? levels.info);
}

function write(level: Level, message: string, fields: Record<string, unknown>) {
  if (!logs(level)) return;
  const line = JSON.stringify({ level, time: new Date().toISOString(), message, ...fields });
  if (level === 'error' || level === 'warn') console.error(line);
  else console.log(line);
}

export const log = {
  debug: (message: string, fields: Record<string, unknown> = {}) => write('debug', message, fields),
  info: (message: string, fields: Record<string, unknown> = {}) => write('info', message, fields),
  warn: (message: string, fields: Record<string, unknown> = {}) => write('warn', message, fields),
  error: (message: string, fields: Record<string, unknown> = {}) => write('error', message, fields),
};

export function errorFields(error: unknown): Record<string, unknown> {
  if (error instanceof Error) return { error: error.message, stack: error.stack };
  return { error: String(error) };
}
