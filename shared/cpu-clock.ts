import process from 'node:process';

// The CPU time an invocation has used, as the runtime can tell it. The Edge Runtime counts the CPU of
// the thread that runs the function (a per-thread CPU timer); node compatibility's
// process.threadCpuUsage reads that same clock where the runtime has it (Deno 2.9 does). Where only
// process.cpuUsage exists it reads the whole process: helper threads and any other worker in it
// count too, so the reading is never lower than the thread's, and a budget held by it stops sooner,
// never later. Where neither exists there is no reading, and callers rely on their caps alone.

export type CpuSource = 'thread' | 'process' | 'none';

export interface CpuClock {
  readonly source: CpuSource;
  /** CPU milliseconds (user and system) used since the clock was made; 0 when nothing measures it. */
  usedMs(): number;
}

type Usage = { user: number; system: number };

function reader(): { source: CpuSource; read: () => Usage } {
  const node = process as unknown as { threadCpuUsage?: () => Usage; cpuUsage?: () => Usage };
  for (const [source, read] of [['thread', node.threadCpuUsage], ['process', node.cpuUsage]] as const) {
    if (typeof read !== 'function') continue;
    try {
      const usage = read.call(process);
      if (Number.isFinite(usage?.user) && Number.isFinite(usage?.system)) return { source, read: () => read.call(process) };
    } catch {
      // present but not implemented by this runtime: try the next
    }
  }
  return { source: 'none', read: () => ({ user: 0, system: 0 }) };
}

/** Starts counting the CPU time used from now. */
export function cpuClock(): CpuClock {
  const { source, read } = reader();
  const start = read();
  return {
    source,
    usedMs: () => {
      const now = read();
      return (now.user - start.user + now.system - start.system) / 1000;
    },
  };
}
