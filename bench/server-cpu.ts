// CPU time of the processes a request goes through, read from /proc around a run: the service's own
// process, and the Redis and PostgreSQL server processes that work for it. A figure per request of
// each, rather than requests per second alone, says where a configuration's cost goes, and holds on a
// shared machine whose speed drifts (the per-request CPU of a process moves far less than its rate).
// Redis tells its own process id (INFO server); PostgreSQL runs one server process per connection, so
// a service's share is the processes of the connections to its own database (pg_stat_activity),
// measured process by process, since a pool may open and close connections during a run.
import { execFileSync } from 'node:child_process';
import { Redis } from 'ioredis';
import pg from 'pg';
import { processCpuMs } from './admission-cost.js';

/** CPU ms used so far by each process of a probe, by pid; undefined when /proc cannot tell (not Linux, another host). */
export type CpuReading = Map<number, number> | undefined;

/** Reads the CPU time of a set of processes (which may change between readings). */
export interface CpuProbe {
  /** What the figure is of, for reports: "service", "Redis", "PostgreSQL". */
  readonly name: string;
  read(): Promise<CpuReading>;
  close(): Promise<void>;
}

/** The CPU ms the processes used between two readings: each process's own difference (one that started in between counts from 0, one that ended is left out). */
export function cpuBetween(before: CpuReading, after: CpuReading): number | undefined {
  if (before === undefined || after === undefined) return undefined;
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}

/** The CPU of the processes `pids`, read from /proc. */
function readPids(pids: readonly number[]): CpuReading {
  const reading = new Map<number, number>();
  for (const pid of pids) {
    const ms = processCpuMs(pid);
    if (ms === undefined) return undefined;
    reading.set(pid, ms);
  }
  return reading;
}

/** A probe of one process (the service's, the baseline's). */
export function processProbe(name: string, pid: number): CpuProbe {
  return { name, read: () => Promise.resolve(readPids([pid])), close: () => Promise.resolve() };
}

/** Whether a server address names this machine, whose /proc then holds its processes. */
function isLocal(hostname: string): boolean {
  return ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(hostname);
}

/** A probe of the Redis server at `url` (its process id from INFO server); undefined readings when it is not local. */
export async function redisProbe(url: string): Promise<CpuProbe> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0 });
  let pid: number | undefined;
  try {
    await redis.connect();
    const info = await redis.info('server');
    pid = Number(/^process_id:([0-9]+)/m.exec(info)?.[1]);
  } finally {
    redis.disconnect();
  }
  const known = isLocal(new URL(url).hostname) && Number.isInteger(pid) ? (pid as number) : undefined;
  return {
    name: 'Redis',
    read: () => Promise.resolve(known === undefined ? undefined : readPids([known])),
    close: () => Promise.resolve(),
  };
}

/**
 * Pins a process (every thread) to `cpus`; false when that could not be done (gone meanwhile, or not
 * ours to pin). The processes pinned this way serve only the bench's own connections and end with them.
 */
function pinProcess(pid: number, cpus: string): boolean {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** How often the server processes of a kept database are looked for: a pool opens connections as load comes. */
const KEEP_POLL_MS = 100;

/** Where a probe keeps its server processes, and whom it tells (once) that one could not be pinned. */
export interface KeepOn {
  cpus: string;
  warn: (message: string) => void;
}

/**
 * A probe of the PostgreSQL server processes that serve the connections to the database of
 * `databaseUrl` (all of them but the probe's own): with a database per service, the service's share.
 * With `keepOn`, every process serving that database (the probe's own included) is pinned to those
 * CPUs as it appears, looked for every KEEP_POLL_MS until the probe is closed: the service's pool
 * closes idle connections between rounds and opens new ones when the next round starts.
 */
export async function postgresProbe(databaseUrl: string, keepOn?: KeepOn): Promise<CpuProbe> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const local = isLocal(new URL(databaseUrl).hostname);
  let keeper: NodeJS.Timeout | undefined;
  if (local && keepOn !== undefined) {
    const kept = new Set<number>();
    let warned = false;
    let looking = false;
    const keep = async (): Promise<void> => {
      if (looking) return;
      looking = true;
      try {
        const { rows } = await client.query<{ pid: number }>(
          'SELECT pid FROM pg_stat_activity WHERE datname = current_database()',
        );
        const current = new Set<number>();
        for (const { pid } of rows) {
          current.add(pid);
          if (kept.has(pid)) continue;
          kept.add(pid);
          if (!pinProcess(pid, keepOn.cpus) && !warned) {
            warned = true;
            keepOn.warn(`PostgreSQL process ${pid} could not be pinned to CPU ${keepOn.cpus}; measured where it runs`);
          }
        }
        // A pid of a closed connection may come back for another one: forget it.
        for (const pid of kept) if (!current.has(pid)) kept.delete(pid);
      } catch {
        // The probe's connection is closing: nothing more to keep.
      } finally {
        looking = false;
      }
    };
    await keep();
    keeper = setInterval(() => void keep(), KEEP_POLL_MS);
    // The bench ends by closing its probes; a run that fails before then must not be kept alive by this.
    keeper.unref();
  }
  return {
    name: 'PostgreSQL',
    async read() {
      if (!local) return undefined;
      const { rows } = await client.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      const reading = new Map<number, number>();
      for (const { pid } of rows) {
        // A connection that closed between the query and here is simply not counted.
        const ms = processCpuMs(pid);
        if (ms !== undefined) reading.set(pid, ms);
      }
      return rows.length > 0 && reading.size === 0 ? undefined : reading;
    },
    close: () => {
      clearInterval(keeper);
      return client.end();
    },
  };
}
