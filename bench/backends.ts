// What scaling out costs (bench:compare --checks backends): the same requests on the four pairings of
// a store and a limiter (embedded or PostgreSQL, in memory or Redis) and on the bare node:http baseline,
// in alternating rounds, and for each the CPU time a request of the service's process, of the Redis
// server and of the PostgreSQL server processes of its database, read from /proc, beside requests per
// second. A configuration's figure is the median of its per-round ratios to the embedded store with the
// in-memory limiter: the one-process deployment an operator moves from. The servers' figures are their
// own CPU. Where the run is pinned, the servers are kept on the generator's cores, off the services'
// core, as they would be on machines of their own: let run on the service's core, Redis made the
// service's own work cost more (the Redis limiter's get at 1.29× to 1.31× of the reference by wrk at
// 200 connections, against 1.18× to 1.23× with Redis on the other core; docs/performance.md).
//
// PostgreSQL: a database per service on the server of ANIMAL_STORE_BENCH_DATABASE_URL (the local
// server by default), filled with the same pets as the embedded stores by `animal-store migrate`'s
// copy, and dropped afterwards; the server processes of those databases are pinned as they appear.
// Redis: the server of ANIMAL_STORE_BENCH_REDIS_URL when it is set; else a redis-server of the bench's
// own on a spare port (other programs' commands on a shared server would count as the services'), or
// the local one where none is installed; a server not the bench's own is left where it runs. Each
// service has a key prefix of its own.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { request } from 'undici';
import { moveToPostgres } from '../src/app/move-to-postgres.js';
import { systemClock } from '../src/core/clock.js';
import { startBaseline } from './baseline.js';
import {
  type CompareLoad,
  CREATE_CONNECTIONS,
  medianRatio,
  roundMsOf,
  SERVICE_PROBE,
  type Side,
  side,
  type SideTotals,
  totals,
  WARMUP_MS,
} from './compare-checks.js';
import { cpuRatio } from './cpu-report.js';
import type { RequestSpec } from './load.js';
import { type LocalService, type LocalServiceOptions, startLocalService } from './local-service.js';
import { pinnedGeneratorCpus } from './pinning.js';
import { targetOf } from './run.js';
import { SCENARIOS } from './scenarios.js';
import { writeSeedLog } from './seed.js';
import { type CpuProbe, postgresProbe, processProbe, redisProbe } from './server-cpu.js';

/** The pairings of a store and a limiter, the first the one every other is compared with. */
export const BACKENDS = [
  { name: 'embedded + in-memory', store: 'embedded', limiter: 'memory' },
  { name: 'embedded + Redis', store: 'embedded', limiter: 'redis' },
  { name: 'PostgreSQL + in-memory', store: 'postgres', limiter: 'memory' },
  { name: 'PostgreSQL + Redis', store: 'postgres', limiter: 'redis' },
] as const;
export type Backend = (typeof BACKENDS)[number];

/** The requests measured on each. */
export const BACKEND_SCENARIOS = ['get', 'list', 'create'] as const;
export type BackendScenario = (typeof BACKEND_SCENARIOS)[number];

/** The bare node:http baseline's name in the figures. */
export const BARE = 'bare node:http';

/** Pets every store starts with (several pages: list answers a full page and a Link). */
const PETS = 1000;
const ADMIN_URL = process.env.ANIMAL_STORE_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SHARED_REDIS_URL = process.env.ANIMAL_STORE_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Connections at which reads are also measured, and their targets judged: enough that each
 * configuration keeps its core about 90 % busy or more (measured on a 2-core machine), as an instance is
 * when traffic makes an operator scale out. With fewer, a configuration that waits for Redis or
 * PostgreSQL idles between their answers, and on a shared machine the same code then costs more a
 * request after each wake (docs/performance.md, "Judged when busy"): those figures are reported too.
 */
export const BUSY_CONNECTIONS = 200;

/**
 * The loads a scenario is measured at: create at its fixed connections; get and list at those asked
 * and at BUSY_CONNECTIONS, where the targets are judged (at the asked ones alone when they are as many or more).
 */
export function backendLoads(
  scenario: BackendScenario,
  asked: number,
): Array<{ connections: number; judged: boolean }> {
  if (scenario === 'create') return [{ connections: CREATE_CONNECTIONS, judged: true }];
  if (asked >= BUSY_CONNECTIONS) return [{ connections: asked, judged: true }];
  return [
    { connections: asked, judged: false },
    { connections: BUSY_CONNECTIONS, judged: true },
  ];
}

/**
 * The targets, as service CPU a request over the embedded store's with the in-memory limiter: the
 * Redis limiter on reads, the PostgreSQL store on each request. Undefined: reported, not targeted.
 */
export function backendTarget(backend: Backend['name'], scenario: BackendScenario): number | undefined {
  if (backend === 'embedded + Redis') return scenario === 'create' ? undefined : 1.25;
  if (backend === 'PostgreSQL + in-memory') return scenario === 'create' ? 2 : 1.5;
  return undefined;
}

/** The order the sides run in, in round `round` of `count` sides: a rotation that starts one later each other round, reversed every other round, so no side keeps a place. */
export function roundOrder(count: number, round: number): number[] {
  const start = Math.floor(round / 2) % count;
  const order = Array.from({ length: count }, (_, index) => (start + index) % count);
  return round % 2 === 0 ? order : order.reverse();
}

/** Warms every side up, then runs them in `load.rounds` rounds (roundOrder); totals per side, in the order given. */
export async function alternateAll(sides: readonly Side[], load: CompareLoad): Promise<SideTotals[]> {
  for (const each of sides) await each(WARMUP_MS);
  const roundMs = roundMsOf(load);
  const results: Array<Awaited<ReturnType<Side>>[]> = sides.map(() => []);
  for (let round = 0; round < load.rounds; round++)
    for (const index of roundOrder(sides.length, round))
      (results[index] as Awaited<ReturnType<Side>>[]).push(await (sides[index] as Side)(roundMs));
  return results.map((runs) => totals(runs));
}

/** One configuration's figures for one scenario. */
export interface BackendFigures {
  backend: Backend['name'] | typeof BARE;
  totals: SideTotals;
  /** Medians of the per-round ratios to the embedded store with the in-memory limiter (undefined: unreadable). */
  serviceCpuRatio: number | undefined;
  /** Service, Redis and PostgreSQL CPU a request together, over the reference's. */
  allCpuRatio: number | undefined;
  throughputRatio: number;
}

export interface BackendsResult {
  scenario: BackendScenario;
  connections: number;
  /** Whether the targets are judged at this load (backendLoads); otherwise its figures are information. */
  judged: boolean;
  figures: BackendFigures[];
}

/** The sum of a side's probes' CPU a request in each round (undefined in a round any probe could not tell). */
function allCpuRounds(side: SideTotals): Array<number | undefined> {
  const probes = Object.values(side.roundCpuUsPerRequest);
  const rounds = probes[0]?.length ?? 0;
  return Array.from({ length: rounds }, (_, round) => {
    let sum = 0;
    for (const probe of probes) {
      const value = probe[round];
      if (value === undefined) return undefined;
      sum += value;
    }
    return sum;
  });
}

/** The figures of `sides` (the baseline first, then BACKENDS in order), each against the reference (BACKENDS[0]). */
export function backendFigures(
  scenario: BackendScenario,
  connections: number,
  sides: readonly SideTotals[],
  judged = true,
): BackendsResult {
  const reference = sides[1] as SideTotals;
  const names = [BARE, ...BACKENDS.map((backend) => backend.name)] as const;
  const all = (side: SideTotals): { roundCpuUsPerRequest: Record<string, Array<number | undefined>> } => ({
    roundCpuUsPerRequest: { all: allCpuRounds(side) },
  });
  return {
    scenario,
    connections,
    judged,
    figures: sides.map((totals, index) => ({
      backend: names[index] as BackendFigures['backend'],
      totals,
      serviceCpuRatio: cpuRatio(
        { roundCpuUsPerRequest: totals.roundCpuUsPerRequest, cpuUsPerRequest: {} },
        { roundCpuUsPerRequest: reference.roundCpuUsPerRequest, cpuUsPerRequest: {} },
        SERVICE_PROBE,
      ),
      allCpuRatio: cpuRatio({ ...all(totals), cpuUsPerRequest: {} }, { ...all(reference), cpuUsPerRequest: {} }, 'all'),
      throughputRatio: medianRatio(totals.roundRequestsPerSecond, reference.roundRequestsPerSecond),
    })),
  };
}

/** A TCP port nobody listens on now. */
function sparePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A redis-server of the bench's own, keeping nothing on disk; undefined where none is installed. */
async function startPrivateRedis(): Promise<{ url: string; stop(): Promise<void> } | undefined> {
  if (!['/usr/bin/redis-server', '/usr/local/bin/redis-server'].some((path) => existsSync(path))) return undefined;
  const port = await sparePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  // A child inherits this process's pinning to the generator's cores: off the services' core (above).
  const server: ChildProcess = spawn('redis-server', args, { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++) {
    try {
      execFileSync('redis-cli', ['-p', String(port), 'ping'], { stdio: 'ignore' });
      break;
    } catch (error) {
      if (tries >= 100) {
        server.kill();
        throw new Error(`redis-server did not start on port ${port}: ${(error as Error).message}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        if (server.exitCode !== null) return resolve();
        server.once('exit', () => resolve());
        server.kill();
      }),
  };
}

async function admin(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** A fresh database holding the seeded pets (the same as the embedded stores'), and how to drop it. */
async function seededDatabase(seedDir: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `animal_store_bench_${process.pid}_${randomBytes(4).toString('hex')}`;
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const drop = (): Promise<void> => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  try {
    await moveToPostgres({ dataDir: seedDir, databaseUrl: url.toString(), clock: systemClock, warn: () => {} });
  } catch (error) {
    await drop();
    throw error;
  }
  return { url: url.toString(), drop };
}

/** A started configuration: its service and the probes of the processes it uses. */
interface Running {
  backend: Backend;
  service: LocalService;
  probes: CpuProbe[];
}

/** What `--checks instructions` may run the service on besides its default (the embedded store, in-memory limits). */
export const INSTRUCTION_BACKINGS = ['memory', 'redis', 'postgres'] as const;
export type InstructionBacking = (typeof INSTRUCTION_BACKINGS)[number];

/** Whether `text` names one of INSTRUCTION_BACKINGS. */
export function isInstructionBacking(text: string): text is InstructionBacking {
  return (INSTRUCTION_BACKINGS as readonly string[]).includes(text);
}

/** The Redis the bench's services use: the one ANIMAL_STORE_BENCH_REDIS_URL names, else one of its own where redis-server is installed, else the machine's. */
async function benchRedis(): Promise<{ url: string; ownServer: boolean; stop(): Promise<void> }> {
  const own = process.env.ANIMAL_STORE_BENCH_REDIS_URL === undefined ? await startPrivateRedis() : undefined;
  return own === undefined
    ? { url: SHARED_REDIS_URL, ownServer: false, stop: async () => {} }
    : { url: own.url, ownServer: true, stop: own.stop };
}

/**
 * The servers a service counted by `--checks instructions` runs on: `redis` the embedded store with the
 * Redis limiter, `postgres` a seeded PostgreSQL store with the in-memory limiter, as the backends
 * check starts them; the service's options, and how to remove what was made.
 */
export async function startInstructionBacking(
  on: InstructionBacking,
): Promise<{ options: Partial<LocalServiceOptions>; describe: string; stop(): Promise<void> }> {
  if (on === 'memory') return { options: {}, describe: 'the embedded store, in-memory limits', stop: async () => {} };
  if (on === 'redis') {
    const redis = await benchRedis();
    return { options: { redisUrl: redis.url }, describe: 'the embedded store, the Redis limiter', stop: redis.stop };
  }
  const seedDir = await mkdtemp(join(tmpdir(), 'animal-store-bench-seed-'));
  try {
    await writeSeedLog(seedDir, PETS);
    const database = await seededDatabase(seedDir);
    return {
      options: { databaseUrl: database.url, pets: 0 },
      describe: 'a PostgreSQL store, in-memory limits',
      stop: database.drop,
    };
  } finally {
    await rm(seedDir, { recursive: true, force: true });
  }
}

/** Starts the four configurations on shared servers; `stop` stops all and removes what they made. */
async function startBackends(log: (line: string) => void): Promise<{ running: Running[]; stop(): Promise<void> }> {
  const undo: Array<() => Promise<void>> = [];
  const stop = async (): Promise<void> => {
    for (const step of undo.reverse()) await step().catch(() => {});
  };
  try {
    const redis = await benchRedis();
    undo.push(redis.stop);
    const redisUrl = redis.url;
    log(
      `backends: Redis ${redis.ownServer ? 'of its own' : `at ${redisUrl} (shared)`}, PostgreSQL at ${new URL(ADMIN_URL).host}; ${PETS} pets in every store`,
    );
    const seedDir = await mkdtemp(join(tmpdir(), 'animal-store-bench-seed-'));
    undo.push(() => rm(seedDir, { recursive: true, force: true }));
    await writeSeedLog(seedDir, PETS);
    const serverCpus = pinnedGeneratorCpus();
    const keepOn = serverCpus === undefined ? undefined : { cpus: serverCpus, warn: log };
    if (serverCpus !== undefined)
      log(
        `backends: the servers kept on CPU ${serverCpus}, off the services' core${redis.ownServer ? '' : " (PostgreSQL only: Redis is not the bench's own)"}`,
      );
    const running: Running[] = [];
    for (const backend of BACKENDS) {
      const database = backend.store === 'postgres' ? await seededDatabase(seedDir) : undefined;
      if (database !== undefined) undo.push(database.drop);
      const service = await startLocalService({
        durability: 'always',
        pets: database === undefined ? PETS : 0,
        ...(database === undefined ? {} : { databaseUrl: database.url }),
        ...(backend.limiter === 'redis' ? { redisUrl } : {}),
      });
      undo.push(service.close);
      const probes: CpuProbe[] = [processProbe(SERVICE_PROBE, service.pid)];
      if (backend.limiter === 'redis') probes.push(await redisProbe(redisUrl));
      if (database !== undefined) probes.push(await postgresProbe(database.url, keepOn));
      for (const probe of probes) undo.push(probe.close);
      running.push({ backend, service, probes });
    }
    return { running, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The answer a service gives to `spec`, for the baseline to repeat. */
async function answerTo(origin: string, spec: RequestSpec): Promise<Parameters<typeof startBaseline>[0]> {
  const response = await request(`${origin}${spec.path}`, {
    method: spec.method,
    headers: spec.headers,
    body: spec.body,
  });
  const headers: [string, string][] = [];
  for (const [name, value] of Object.entries(response.headers))
    for (const one of Array.isArray(value) ? value : [value]) if (one !== undefined) headers.push([name, one]);
  return { status: response.statusCode, headers, body: await response.body.text() };
}

/** Measures every scenario on every configuration and the baseline, at each of its loads (backendLoads). */
export async function compareBackends(load: CompareLoad): Promise<BackendsResult[]> {
  const { running, stop } = await startBackends(load.log);
  try {
    const results: BackendsResult[] = [];
    for (const scenarioName of BACKEND_SCENARIOS) {
      const scenario = SCENARIOS[scenarioName];
      // Each configuration's requests, made once (a get needs its pet) for every load.
      const prepared: Array<{
        origin: string;
        requests: Awaited<ReturnType<typeof scenario.prepare>>;
        probes: CpuProbe[];
      }> = [];
      let baseline: Awaited<ReturnType<typeof startBaseline>> | undefined;
      try {
        for (const { service, probes } of running) {
          const target = targetOf(service.apiUrl, service.key);
          const { origin } = target;
          const requests = await scenario.prepare(target);
          // The baseline repeats the reference's answer to the same request, byte for byte.
          baseline ??= await startBaseline(await answerTo(origin, requests.requests[0] as RequestSpec));
          prepared.push({ origin, requests, probes });
        }
        const reference = prepared[0];
        if (baseline === undefined || reference === undefined)
          throw new Error('backends: no configuration was started');
        for (const { connections, judged } of backendLoads(scenarioName, load.connections)) {
          const overrides = { connections };
          const sides: Side[] = [
            side(baseline.origin, reference.requests, scenario, load, overrides, [
              processProbe(SERVICE_PROBE, baseline.pid),
            ]),
            ...prepared.map(({ origin, requests, probes }) =>
              side(origin, requests, scenario, load, overrides, probes),
            ),
          ];
          load.log(
            `backends ${scenarioName} at ${connections} connections${judged ? '' : ' (information: the targets are judged when busy)'}: ${BARE} and ${BACKENDS.length} configurations in turn, ${load.rounds} rounds of ${roundMsOf(load) / 1000}s each`,
          );
          const measured = await alternateAll(sides, load);
          results.push(backendFigures(scenarioName, connections, measured, judged));
        }
      } finally {
        await baseline?.close();
      }
    }
    return results;
  } finally {
    await stop();
  }
}
