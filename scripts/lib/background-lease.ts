// The lease on the local server's timed background work (migration *_background_lease.sql): the
// process holding it runs the job runner, the webhook dispatcher, retention and the statistics
// refresh for the database; the others leave them to it.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { db } from '../../shared/db/client.ts';

const leaseName = 'local-background';

/** Who this process is, for the lease: its host and process, and a random part (a restart is someone new). */
export const leaseHolder = `${hostname()}:${process.pid}:${randomUUID()}`;

/** Takes or renews the lease; true when this holder has it for the next `ttlSeconds`. */
export async function takeBackgroundLease(ttlSeconds: number, holder = leaseHolder): Promise<boolean> {
  const [{ taken }] = await db()<{ taken: boolean }[]>`
    select app.take_background_lease(${leaseName}, ${holder}, make_interval(secs => ${ttlSeconds})) as taken`;
  return taken;
}

/** Gives the lease up, if this holder has it. */
export async function releaseBackgroundLease(holder = leaseHolder): Promise<void> {
  await db()`select app.release_background_lease(${leaseName}, ${holder})`;
}
