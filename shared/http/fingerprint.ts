// A stable fingerprint of an unexpected error: the same fault gives the same 16 hex characters on
// every request and every deployment, whatever values it carried, so an operator can group the 500s
// of the log and see when a new kind appears.

/** The parts of a PostgreSQL error (postgres.js) that name the fault without the values. */
interface DatabaseErrorLike {
  code?: unknown;
  routine?: unknown;
  constraint_name?: unknown;
  table_name?: unknown;
  column_name?: unknown;
}

/** The message without what varies per request: quoted values, ids, numbers. */
function messageShape(message: string): string {
  return message
    .replace(/"[^"]*"|'[^']*'/g, '?')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '?')
    .replace(/\d+/g, '#');
}

/** Where the error was thrown: the first stack frame, without line and column. */
function origin(stack: string | undefined): string {
  const frame = stack?.split('\n').find((line) => line.trim().startsWith('at '));
  return frame ? frame.trim().replace(/:\d+:\d+\)?$/, '').replace(/^at\s+/, '').replace(/^.*[\\/]/, '') : '';
}

export async function errorFingerprint(error: unknown): Promise<string> {
  let parts: string[];
  if (error instanceof Error) {
    const db = error as Error & DatabaseErrorLike;
    parts = typeof db.code === 'string' && typeof db.routine === 'string'
      ? ['postgres', db.code, db.routine, String(db.constraint_name ?? ''), String(db.table_name ?? ''), String(db.column_name ?? '')]
      : [error.name, messageShape(error.message), origin(error.stack)];
  } else {
    parts = ['thrown', typeof error];
  }
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(parts.join('|')));
  return [...new Uint8Array(digest)].slice(0, 8).map((b) => b.toString(16).padStart(2, '0')).join('');
}
