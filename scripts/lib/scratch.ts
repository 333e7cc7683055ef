// Throw-away infrastructure for the test suite and the benchmarks: a free loopback port, and a
// migrated embedded PostgreSQL in a temporary folder that is removed when stopped.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { openDatabase } from './database.ts';
import { migrate } from './migrate.ts';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface ScratchDatabase {
  url: string;
  dataDir: string;
  stop: () => Promise<void>;
}

/**
 * A new embedded PostgreSQL with every migration applied; never a DATABASE_URL from the environment.
 * `settings`: what the server starts with (`-c name=value`), such as shared_preload_libraries.
 */
export async function startScratchDatabase(prefix: string, options: { settings?: Record<string, string>; onLog?: (line: string) => void } = {}): Promise<ScratchDatabase> {
  const dataDir = await mkdtemp(join(tmpdir(), prefix));
  const given = process.env.DATABASE_URL;
  delete process.env.DATABASE_URL;
  const database = await openDatabase({ dataDir, port: await freePort(), settings: options.settings, onLog: options.onLog }).finally(() => {
    if (given !== undefined) process.env.DATABASE_URL = given;
  });
  const sql = postgres(database.url, { max: 1, onnotice: () => {} });
  try {
    await migrate(sql);
  } finally {
    await sql.end();
  }
  return {
    url: database.url,
    dataDir,
    stop: async () => {
      await database.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
