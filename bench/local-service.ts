// A local service for a bench run: createAnimalStore on a temporary data directory, in a child
// process of its own. On a 2-core machine that gives the service one core and the load generator
// the other; in one process they would share one event loop and the figures would measure both.
// The child is bench/service-child.ts; this side seeds the directory, starts it, and cleans up.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Durability } from './args.js';
import { SERVICE_CPUS_VARIABLE } from './pinning.js';
import { writeSeedLog } from './seed.js';

/** The repository root: children run `node --import tsx` from here so the loader resolves. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Limits of the bench's enterprise key: far beyond any rate one machine can send. */
const HUGE_LIMIT = 1_000_000_000_000;
/** How long a child may take to start (a million-pet replay included) or stop before it is killed. */
const CHILD_START_TIMEOUT_MS = 120_000;
const CHILD_STOP_TIMEOUT_MS = 20_000;
/** The same under a wrapper (valgrind), where node runs some fifty times slower. */
const WRAPPED_START_TIMEOUT_MS = 900_000;

/** What the child needs to know (sent in an environment variable, as JSON). */
export interface ServiceChildConfig {
  dataDir: string;
  durability: Durability;
  /** info (the CLI's default: the access log on) or warn (off). */
  logLevel?: 'info' | 'warn';
  keys: { key: string; plan: 'enterprise' | 'free'; perMinute?: number; perDay?: number }[];
  /** Deliveries to receivers on this machine (`--webhook-allow-private`). */
  webhookAllowPrivate?: boolean;
  /** PostgreSQL instead of the embedded store. */
  databaseUrl?: string;
  /** The limiter shared through Redis instead of the in-memory one, and its key prefix. */
  redisUrl?: string;
  redisPrefix?: string;
}

export interface LocalService {
  /** API address with base path, e.g. http://127.0.0.1:40123/v1. */
  apiUrl: string;
  /** An enterprise key with huge limits. */
  key: string;
  /** A free-plan key (60/min, 1,000/day) for the over-limit scenario. */
  freeKey: string;
  pid: number;
  /** Stops the service gracefully and removes its data directory. */
  close(): Promise<void>;
}

export interface LocalServiceOptions {
  durability: Durability;
  /** Pets to generate into the log before the service starts. */
  pets: number;
  /** Write the child's CPU profile (node --cpu-prof) into this directory. */
  profileDir?: string | undefined;
  /** More node flags for the child (e.g. --trace-gc when a latency spike needs explaining). */
  nodeArgs?: readonly string[];
  /** info (the default, as `animal-store serve`: the access log on) or warn (off). */
  logLevel?: 'info' | 'warn';
  /** The root of the build to run (another checkout's, to compare builds); this repository's by default. */
  root?: string;
  /** A command that runs node (valgrind and its options), as spawnChild's. */
  wrapper?: readonly string[];
  /** The child's script, bench/service-child.ts by default (a bundle of it, for instructions.ts). */
  script?: string;
  /** Deliveries to receivers on this machine (`--webhook-allow-private`). */
  webhookAllowPrivate?: boolean;
  /** PostgreSQL instead of the embedded store. */
  databaseUrl?: string;
  /** The limiter shared through Redis (with a key prefix of this service's own) instead of the in-memory one. */
  redisUrl?: string;
}

/** A random RFC 6750 token the service accepts as a supplied key (README "Rate limits": 16 to 256 characters). */
function randomKey(label: string): string {
  return `bench-${label}-${randomBytes(16).toString('hex')}`;
}

/**
 * Spawns `node --import tsx SCRIPT` with an IPC channel, and resolves with its first message; `wrapper`
 * is a command that runs node (valgrind and its options, for instructions.ts).
 */
export async function spawnChild<T>(
  script: string,
  env: Record<string, string>,
  nodeArgs: readonly string[] = [],
  root: string = ROOT,
  wrapper: readonly string[] = [],
): Promise<{ child: ChildProcess; first: T }> {
  // Pinned when bench:compare asked for it (see pinning.ts): the service gets its core, the generator the rest.
  const cpus = process.env[SERVICE_CPUS_VARIABLE];
  // A bundled script (instructions.ts bundles the children it runs under valgrind) needs no loader.
  const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const command = [...wrapper, process.execPath, ...nodeArgs, ...loader, resolve(root, script)];
  const [program, ...args] = cpus === undefined ? command : ['taskset', '-c', cpus, ...command];
  const child = spawn(program as string, args, {
    cwd: root,
    env: { ...process.env, ...env },
    // A service's stdout is its access log: written, as to a file, and not shown.
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const startTimeoutMs = wrapper.length > 0 ? WRAPPED_START_TIMEOUT_MS : CHILD_START_TIMEOUT_MS;
  const first = await new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} did not start within ${startTimeoutMs} ms`));
    }, startTimeoutMs);
    child.once('message', (message) => {
      clearTimeout(timer);
      resolve(message as T);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with code ${code} before it was ready`));
    });
  });
  return { child, first };
}

/** Asks a child to stop (by closing its IPC channel) and waits for it; kills it if it lingers. */
export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_STOP_TIMEOUT_MS);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    // A child that is done may have closed the channel itself already.
    if (child.connected) child.disconnect();
  });
}

/** Seeds a temporary data directory and starts the service on it in a child process. */
export async function startLocalService(options: LocalServiceOptions): Promise<LocalService> {
  const dataDir = await mkdtemp(join(tmpdir(), 'animal-store-bench-'));
  const key = randomKey('enterprise');
  const freeKey = randomKey('free');
  try {
    if (options.pets > 0) await writeSeedLog(dataDir, options.pets);
    const config: ServiceChildConfig = {
      dataDir,
      durability: options.durability,
      logLevel: options.logLevel ?? 'info',
      keys: [
        { key, plan: 'enterprise', perMinute: HUGE_LIMIT, perDay: HUGE_LIMIT },
        { key: freeKey, plan: 'free' },
      ],
      ...(options.webhookAllowPrivate === undefined ? {} : { webhookAllowPrivate: options.webhookAllowPrivate }),
      ...(options.databaseUrl === undefined ? {} : { databaseUrl: options.databaseUrl }),
      ...(options.redisUrl === undefined
        ? {}
        : { redisUrl: options.redisUrl, redisPrefix: `animal-store-bench:${randomBytes(4).toString('hex')}:` }),
    };
    const nodeArgs = [
      ...(options.nodeArgs ?? []),
      ...(options.profileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', options.profileDir]),
    ];
    const { child, first } = await spawnChild<{ url: string; basePath: string }>(
      options.script ?? 'bench/service-child.ts',
      {
        ANIMAL_STORE_BENCH_SERVICE: JSON.stringify(config),
      },
      nodeArgs,
      options.root,
      options.wrapper,
    );
    return {
      apiUrl: `${first.url}${first.basePath}`,
      key,
      freeKey,
      pid: child.pid ?? 0,
      async close() {
        await stopChild(child);
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/** Two services started (one after the other), given to `run`, and closed however it ends. */
export async function withServices<T>(
  options: [LocalServiceOptions, LocalServiceOptions],
  run: (a: LocalService, b: LocalService) => Promise<T>,
): Promise<T> {
  const a = await startLocalService(options[0]);
  try {
    const b = await startLocalService(options[1]);
    try {
      return await run(a, b);
    } finally {
      await b.close();
    }
  } finally {
    await a.close();
  }
}
