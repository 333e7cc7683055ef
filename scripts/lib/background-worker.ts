// The local server's background work on a thread of its own (see background.ts): the job runner, the
// webhook dispatcher and event retention, with a connection pool of their own, so that their work
// never holds the event loop that answers requests. On Supabase the dispatcher is a function of its
// own for the same reason.
//
// Messages from the server's thread: { run: kinds, ids } starts jobs a request just queued (after its
// commit); { stop: true } stops everything, waits for the work in flight and closes the pool, then
// answers { stopped: true }. The server's requests waiting to be answered are read from `waiting`
// (shared memory, written by the server's thread): while they queue, fewer jobs and deliveries run.
import { parentPort, workerData } from 'node:worker_threads';
import { closeDb } from '../../shared/db/client.ts';
import { runAfterCommit } from '../../shared/jobs/after-commit.ts';
import { jobRegistry } from '../../shared/job-registry.ts';
import type { JobRegistry } from '../../shared/jobs/runner.ts';
import { errorFields, log } from '../../shared/log.ts';
import { giveWayTo, startBackgroundJobs } from './background.ts';

const port = parentPort!;
const { waiting, organisations } = workerData as { waiting: SharedArrayBuffer; organisations?: string[] };
const stop = startBackgroundJobs({ room: giveWayTo(new Int32Array(waiting)), organisations });

port.on('message', (message: { run?: string[]; ids?: string[]; stop?: true }) => {
  if (message.run && message.ids) {
    const registry: JobRegistry = Object.fromEntries(message.run.map((kind) => [kind, jobRegistry[kind as keyof typeof jobRegistry]]));
    runAfterCommit(registry, message.ids);
  } else if (message.stop) {
    stop()
      .then(() => closeDb())
      .catch((error) => log.error('background work did not stop cleanly', errorFields(error)))
      .finally(() => {
        port.postMessage({ stopped: true });
        port.close();
      });
  }
});
port.postMessage({ ready: true });
