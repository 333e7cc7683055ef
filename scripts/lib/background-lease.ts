// The lease on the local server's timed background work (migration *_background_lease.sql): the
// process holding it runs the job runner, the webhook dispatcher, retention and the statistics
// refresh for the database; the others leave them to it.
import { hostname } from 'node:os';
import { config } from '../../shared/config.ts';
import { db } from '../../shared/db/client.ts';

const leaseName = 'local-background';

/**
 * Who this process is, for the lease: its host and the port it serves. Two processes on one host
 * cannot share a port, and a process started again on the same port after a crash renews the lease
 * its predecessor held at once, instead of waiting for it to lapse with nothing running the timers.
 */
export const leaseHolder = `${hostname()}:${config.port()}`;

/** Takes or renews the lease; true when this process has it for the next `ttlSeconds`. */
export async function takeBackgroundLease(ttlSeconds: number): Promise<boolean> {
  const [{ taken }] = await db()<{ taken: boolean }[]>`
    select app.take_background_lease(${leaseName}, ${leaseHolder}, make_interval(secs => ${ttlSeconds})) as taken`;
  return taken;
}

/** Gives the lease up, if this process has it. */
export async function releaseBackgroundLease(): Promise<void> {
  await db()`select app.release_background_lease(${leaseName}, ${leaseHolder})`;
}
