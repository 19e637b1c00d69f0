// The measurements behind the performance targets (docs/performance.md), each on
// fresh local services in child processes:
// service / baseline throughput (list, get, ...), deep page against first page, create with fsync
// always against never, and list latency at half of the peak rate. Runs being compared alternate
// (A B A B ...) so a slow drift of the machine (thermal, page cache, a neighbour) hits both alike,
// and each side is warmed up first so neither pays for the JIT inside the window.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { admissionNanoseconds, processCpuMs } from './admission-cost.js';
import type { Durability } from './args.js';
import { type CannedAnswer, startBaseline } from './baseline.js';
import { runThreadedLoad } from './load-workers.js';
import type { LoadResult, RequestSpec } from './load.js';
import { type LocalService, startLocalService } from './local-service.js';
import { halfOfPeakRate } from './pacing.js';
import { generatorShare, pinnedGeneratorCpus, pinPlan } from './pinning.js';
import { targetOf } from './run.js';
import { type LoadScenario, type PreparedScenario, SCENARIOS, type Target } from './scenarios.js';
import { type CpuProbe, cpuBetween, processProbe } from './server-cpu.js';

/** The load every comparison uses. */
export interface CompareLoad {
  connections: number;
  pipelining: number;
  /** Measured time per side, split over the rounds. */
  durationMs: number;
  rounds: number;
  timeoutMs: number;
  /** Threads the generator spreads its connections over: one per core it was given. */
  workers: number;
  /** Also run the throughput comparisons with wrk, for a ratio from an independent generator. */
  crossCheck?: boolean;
  log(line: string): void;
}

/** The name of the probe of the process that answers (the service, or the bare baseline). */
export const SERVICE_PROBE = 'service';
/** Each side gets this long to warm up (JIT, connection set-up) before the measured rounds. */
export const WARMUP_MS = 2000;
/** Each measured run first sends this long unmeasured on its own connections, so none starts cold. */
const RUN_WARMUP_MS = 500;
/** Pets of the store the throughput checks run on (several pages: list answers a full page and a Link). */
const SMALL_STORE_PETS = 1000;
/** The store size of the deep-page target. */
export const DEEP_STORE_PETS = 1_000_000;
/** Create is compared at 64 connections, where group commit has writes to share. */
export const CREATE_CONNECTIONS = 64;

/**
 * A run's result, with the generator's own CPU time during it (warm-up included) and the time that took,
 * and the CPU time each probed process used during it (warm-up included), by probe name.
 */
type MeasuredRun = LoadResult & {
  generatorCpuMs?: number;
  generatorElapsedMs?: number;
  cpuMs?: Record<string, number | undefined>;
};
export type Side = (durationMs: number) => Promise<MeasuredRun>;

/**
 * A side that runs a prepared scenario against `origin` with the comparison's load, reading the CPU
 * time of the processes of `probes` (the service's, its servers') before and after each run.
 */
export function side(
  origin: string,
  prepared: PreparedScenario,
  scenario: LoadScenario,
  load: CompareLoad,
  overrides: Partial<{ connections: number; ratePerSecond: number }> = {},
  probes: readonly CpuProbe[] = [],
): Side {
  return async (durationMs) => {
    const probedBefore = await Promise.all(probes.map((probe) => probe.read()));
    const cpuBefore = process.cpuUsage();
    const connections = overrides.connections ?? load.connections;
    const result = await runThreadedLoad(
      {
        origin,
        connections,
        pipelining: load.pipelining,
        workers: Math.min(load.workers, connections),
        durationMs,
        amount: undefined,
        ratePerSecond: overrides.ratePerSecond,
        warmupMs: RUN_WARMUP_MS,
        timeoutMs: load.timeoutMs,
        requests: prepared.requests,
        expectedStatuses: new Set(scenario.expectedStatuses),
      },
      () => undefined,
    );
    // The warm-up is part of the CPU measured, and of the time: RUN_WARMUP_MS is added to the elapsed.
    const used = process.cpuUsage(cpuBefore);
    const probedAfter = await Promise.all(probes.map((probe) => probe.read()));
    const cpuMs: Record<string, number | undefined> = {};
    probes.forEach((probe, index) => {
      cpuMs[probe.name] = cpuBetween(probedBefore[index], probedAfter[index]);
    });
    return {
      ...result,
      generatorCpuMs: (used.user + used.system) / 1000,
      generatorElapsedMs: result.elapsedMs + RUN_WARMUP_MS,
      cpuMs,
    };
  };
}

/** Totals of several runs of one side. */
export interface SideTotals {
  requests: number;
  elapsedMs: number;
  requestsPerSecond: number;
  /** Requests/s of each round, in round order (for per-round ratios). */
  roundRequestsPerSecond: number[];
  /** Median of the rounds' p50 and p99 latencies, ms. */
  p50Ms: number;
  p99Ms: number;
  unexpected: number;
  problems: string[];
  /** The largest share of its cores' time the generator used in a round (see pinning.ts). */
  generatorShare: number;
  /**
   * CPU µs a request of each probed process (by probe name), in each round: its CPU time over the
   * answers of the run and its warm-up; undefined where /proc could not tell.
   */
  roundCpuUsPerRequest: Record<string, Array<number | undefined>>;
  /** The median of each probe's rounds; undefined where a round could not tell. */
  cpuUsPerRequest: Record<string, number | undefined>;
}

/** The cores the generator runs on: those taskset left it, or all of them unpinned. */
function generatorCores(): number {
  return pinPlan(availableParallelism())?.generatorCores ?? availableParallelism();
}

/** CPU µs a request from a run's CPU ms and the answers it covers (the run's and its warm-up's). */
export function usPerRequest(cpuMs: number | undefined, answers: number): number | undefined {
  return cpuMs === undefined || answers <= 0 ? undefined : (cpuMs * 1000) / answers;
}

/** The median of per-round figures; undefined when any round could not tell. */
export function medianOfKnown(values: ReadonlyArray<number | undefined>): number | undefined {
  if (values.length === 0 || values.some((value) => value === undefined)) return undefined;
  return median(values as number[]);
}

export function totals(results: readonly MeasuredRun[]): SideTotals {
  const requests = results.reduce((sum, result) => sum + result.completed, 0);
  const elapsedMs = results.reduce((sum, result) => sum + result.elapsedMs, 0);
  const roundCpuUsPerRequest: Record<string, Array<number | undefined>> = {};
  for (const name of new Set(results.flatMap((result) => Object.keys(result.cpuMs ?? {}))))
    roundCpuUsPerRequest[name] = results.map((result) =>
      usPerRequest(result.cpuMs?.[name], result.completed + (result.warmupCompleted ?? 0)),
    );
  const cpuUsPerRequest: Record<string, number | undefined> = {};
  for (const [name, rounds] of Object.entries(roundCpuUsPerRequest)) cpuUsPerRequest[name] = medianOfKnown(rounds);
  return {
    requests,
    elapsedMs,
    requestsPerSecond: elapsedMs > 0 ? (requests * 1000) / elapsedMs : 0,
    roundRequestsPerSecond: results.map((result) =>
      result.elapsedMs > 0 ? (result.completed * 1000) / result.elapsedMs : 0,
    ),
    p50Ms: median(results.map((result) => result.latency.summary().p50Ms)),
    p99Ms: median(results.map((result) => result.latency.summary().p99Ms)),
    unexpected: results.reduce((sum, result) => sum + result.unexpected + result.errors + result.timeouts, 0),
    problems: results.flatMap((result) => result.problems).slice(0, 5),
    generatorShare: Math.max(
      0,
      ...results.map((result) =>
        generatorShare(result.generatorCpuMs ?? 0, result.generatorElapsedMs ?? result.elapsedMs, generatorCores()),
      ),
    ),
    roundCpuUsPerRequest,
    cpuUsPerRequest,
  };
}

/** How long each side runs in one round of an alternation. */
export function roundMsOf(load: CompareLoad): number {
  return Math.max(500, Math.round(load.durationMs / load.rounds));
}

/**
 * Warms both sides up, then runs them alternately for `rounds` rounds; totals per side. The order flips
 * every round (a b, b a, a b, ...), so that a machine whose speed drifts during a round favours
 * neither side. `afterRound`, when given, runs at the end of every round (a second generator's own pair
 * of runs) and is told whether `a` ran first, so that it can run its pair in the mirrored order and
 * meet the machine in the same state as the rounds beside it.
 */
export async function alternate(
  a: Side,
  b: Side,
  load: CompareLoad,
  afterRound?: (roundMs: number, aRanFirst: boolean) => void,
): Promise<[SideTotals, SideTotals]> {
  await a(WARMUP_MS);
  await b(WARMUP_MS);
  const roundMs = roundMsOf(load);
  const resultsA: MeasuredRun[] = [];
  const resultsB: MeasuredRun[] = [];
  for (let round = 0; round < load.rounds; round++) {
    const aRanFirst = round % 2 === 0;
    if (aRanFirst) {
      resultsA.push(await a(roundMs));
      resultsB.push(await b(roundMs));
    } else {
      resultsB.push(await b(roundMs));
      resultsA.push(await a(roundMs));
    }
    afterRound?.(roundMs, aRanFirst);
  }
  return [totals(resultsA), totals(resultsB)];
}

/** The median of `values` (the mean of the middle two for an even count); 0 for none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return 0;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * The median of the per-round ratios numerator / denominator: each round's pair ran back to back, so
 * its ratio holds however fast the machine was then; one slow round moves a median little.
 */
export function medianRatio(numerator: readonly number[], denominator: readonly number[]): number {
  return median(roundRatios(numerator, denominator));
}

/** Each round's ratio numerator / denominator; a round with no denominator figure has none. */
export function roundRatios(numerator: readonly number[], denominator: readonly number[]): number[] {
  const ratios: number[] = [];
  numerator.forEach((value, round) => {
    const other = denominator[round] ?? 0;
    if (other > 0) ratios.push(value / other);
  });
  return ratios;
}

/**
 * The lowest and highest per-round ratio behind a median, as "rounds 0.72 to 0.88": how far the
 * machine moved the figure within one run, so that a reader can tell a result that sits on its target
 * from one that clears it in every round.
 */
export function roundSpreadText(numerator: readonly number[], denominator: readonly number[]): string {
  const ratios = roundRatios(numerator, denominator);
  if (ratios.length < 2) return 'one round';
  return `rounds ${Math.min(...ratios).toFixed(2)} to ${Math.max(...ratios).toFixed(2)}`;
}

/** The answer the service gives to a scenario's first request, for the baseline to repeat. */
export async function captureAnswer(target: Target, spec: RequestSpec): Promise<CannedAnswer> {
  const response = await request(`${target.origin}${spec.path}`, {
    method: spec.method,
    headers: spec.headers,
    body: spec.body,
  });
  const headers: [string, string][] = [];
  for (const [name, value] of Object.entries(response.headers)) {
    for (const one of Array.isArray(value) ? value : [value]) if (one !== undefined) headers.push([name, one]);
  }
  return { status: response.statusCode, headers, body: await response.body.text() };
}

async function withService<T>(
  durability: Durability,
  pets: number,
  run: (service: LocalService, target: Target) => Promise<T>,
): Promise<T> {
  const service = await startLocalService({ durability, pets });
  try {
    return await run(service, targetOf(service.apiUrl, service.key));
  } finally {
    await service.close();
  }
}

export interface RatioResult {
  scenario: string;
  service: SideTotals;
  baseline: SideTotals;
  /** The median of the rounds' service requests/s over baseline requests/s. */
  ratio: number;
  /**
   * The same comparison made with wrk in the same rounds, where it is installed and asked for
   * (--cross-check): mean requests/s of each side, and the median per-round ratio.
   */
  wrk?: { service: number; baseline: number; ratio: number };
}

/**
 * The Lua script that makes wrk send `spec`'s method and body (wrk sends GET without one). The body
 * goes in a long bracket string, which needs no escaping as long as it does not hold its closing mark.
 */
export function wrkScript(spec: RequestSpec): string | undefined {
  if (spec.method === 'GET' && spec.body === undefined) return undefined;
  const lines = [`wrk.method = "${spec.method}"`];
  if (spec.body !== undefined) {
    if (spec.body.includes(']==]')) throw new TypeError('a request body with "]==]" cannot be given to wrk');
    lines.push(`wrk.body = [==[${spec.body}]==]`);
  }
  return `${lines.join('\n')}\n`;
}

/** A wrk run: its command line, and the removal of its script file once it has run. */
export interface WrkCommand {
  program: string;
  args: string[];
  cleanup(): void;
}

/** The command that makes wrk send `spec` to `origin` for `seconds`, pinned to `cpus` when given. */
export function wrkCommand(
  origin: string,
  spec: RequestSpec,
  connections: number,
  seconds: number,
  cpus: string | undefined,
): WrkCommand {
  const script = wrkScript(spec);
  const dir = script === undefined ? undefined : mkdtempSync(join(tmpdir(), 'animal-store-wrk-'));
  const scriptArgs: string[] = [];
  if (dir !== undefined && script !== undefined) {
    writeFileSync(join(dir, 'request.lua'), script);
    scriptArgs.push('-s', join(dir, 'request.lua'));
  }
  const args = [
    '-t1',
    `-c${connections}`,
    `-d${seconds}s`,
    ...scriptArgs,
    ...Object.entries(spec.headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]),
    `${origin}${spec.path}`,
  ];
  const [program, ...rest] = cpus === undefined ? ['wrk', ...args] : ['taskset', '-c', cpus, 'wrk', ...args];
  return {
    program: program as string,
    args: rest,
    cleanup: () => {
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Requests/s wrk measured sending `spec` to `origin`, pinned to `cpus` when given. */
function wrkRequestsPerSecond(
  origin: string,
  spec: RequestSpec,
  connections: number,
  seconds: number,
  cpus: string | undefined,
): number {
  const command = wrkCommand(origin, spec, connections, seconds, cpus);
  try {
    const output = execFileSync(command.program, command.args, { encoding: 'utf8' });
    const match = /Requests\/sec:\s+([0-9.]+)/.exec(output);
    if (match === null) throw new Error(`wrk printed no Requests/sec: ${output}`);
    // wrk counts every answer; one that is not 2xx would be a request the service refused.
    const refused = /Non-2xx or 3xx responses:\s+([0-9]+)/.exec(output);
    if (refused !== null) throw new Error(`wrk got ${refused[1]} answers that were not 2xx or 3xx: ${output}`);
    return Number(match[1]);
  } finally {
    command.cleanup();
  }
}

/** wrk's mean requests/s of each side over the rounds, and the median of the per-round ratios a / b. */
export function wrkSummary(a: number[], b: number[]): { a: number; b: number; ratio: number } {
  const mean = (values: number[]): number => values.reduce((sum, value) => sum + value, 0) / values.length;
  return { a: mean(a), b: mean(b), ratio: medianRatio(a, b) };
}

/**
 * With --cross-check, wrk (an independent generator written in C, pinned alike) runs the same pair in
 * every round, right after this bench's and in the mirrored order: on a machine whose speed drifts,
 * both ratios then see the same drift, which a separate alternation afterwards would not.
 */
export function wrkRounds(
  a: { origin: string; spec: RequestSpec; alone?: <T>(run: () => T) => T },
  b: { origin: string; spec: RequestSpec; alone?: <T>(run: () => T) => T },
  connections: number,
): { runsA: number[]; runsB: number[]; afterRound: (roundMs: number, aRanFirst: boolean) => void } {
  const cpus = pinnedGeneratorCpus();
  const runsA: number[] = [];
  const runsB: number[] = [];
  const afterRound = (roundMs: number, aRanFirst: boolean): void => {
    const seconds = Math.max(1, Math.round(roundMs / 1000));
    const run = (side: { origin: string; spec: RequestSpec; alone?: <T>(run: () => T) => T }): number => {
      const measure = (): number => wrkRequestsPerSecond(side.origin, side.spec, connections, seconds, cpus);
      return side.alone === undefined ? measure() : side.alone(measure);
    };
    // The mirror of the bench's order in this round: a, b, b, a, or the reverse.
    if (aRanFirst) {
      runsB.push(run(b));
      runsA.push(run(a));
    } else {
      runsA.push(run(a));
      runsB.push(run(b));
    }
  };
  return { runsA, runsB, afterRound };
}

/** Whether wrk can be run here. */
export function hasWrk(): boolean {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (error) {
    // wrk --version exits 1 after printing its version.
    return (error as { status?: number }).status === 1;
  }
}

/** Service against the bare node:http baseline answering the same bytes, for one scenario. */
export function compareWithBaseline(name: keyof typeof SCENARIOS, load: CompareLoad): Promise<RatioResult> {
  const scenario = SCENARIOS[name];
  return withService('always', scenario.localPets === 0 ? 0 : SMALL_STORE_PETS, async (serviceProcess, target) => {
    const prepared = await scenario.prepare(target);
    const baseline = await startBaseline(await captureAnswer(target, prepared.requests[0] as RequestSpec));
    try {
      load.log(
        `${name}: service and baseline alternately, ${load.rounds} rounds of ${roundMsOf(load) / 1000}s each` +
          (load.crossCheck === true ? ', each round also by wrk' : ''),
      );
      const spec = prepared.requests[0] as RequestSpec;
      const wrk = wrkRounds({ origin: target.origin, spec }, { origin: baseline.origin, spec }, load.connections);
      const [service, bare] = await alternate(
        side(target.origin, prepared, scenario, load, {}, [processProbe(SERVICE_PROBE, serviceProcess.pid)]),
        side(baseline.origin, prepared, scenario, load, {}, [processProbe(SERVICE_PROBE, baseline.pid)]),
        load,
        load.crossCheck === true ? wrk.afterRound : undefined,
      );
      const result: RatioResult = {
        scenario: name,
        service,
        baseline: bare,
        ratio: medianRatio(service.roundRequestsPerSecond, bare.roundRequestsPerSecond),
      };
      if (wrk.runsA.length > 0) {
        const summary = wrkSummary(wrk.runsA, wrk.runsB);
        result.wrk = { service: summary.a, baseline: summary.b, ratio: summary.ratio };
      }
      return result;
    } finally {
      await baseline.close();
    }
  });
}

export interface DeepPageResult {
  pets: number;
  petsBefore: unknown;
  firstPage: SideTotals;
  deepPage: SideTotals;
  /** Deep page p50 over first page p50. */
  p50Ratio: number;
}

/** deep-page against list (the first page) on one store of a million pets. */
export function compareDeepPage(load: CompareLoad, pets = DEEP_STORE_PETS): Promise<DeepPageResult> {
  load.log(`deep-page: generating and replaying ${pets.toLocaleString('en-US')} pets, then walking to a deep page`);
  return withService('always', pets, async (service, target) => {
    const first = await SCENARIOS.list.prepare(target);
    const deep = await SCENARIOS['deep-page'].prepare(target);
    load.log(`deep-page: first and deep page alternately (${JSON.stringify(deep.notes)})`);
    const probes = [processProbe(SERVICE_PROBE, service.pid)];
    const [firstPage, deepPage] = await alternate(
      side(target.origin, first, SCENARIOS.list, load, {}, probes),
      side(target.origin, deep, SCENARIOS['deep-page'], load, {}, probes),
      load,
    );
    return {
      pets,
      petsBefore: deep.notes.petsBefore,
      firstPage,
      deepPage,
      p50Ratio: firstPage.p50Ms > 0 ? deepPage.p50Ms / firstPage.p50Ms : 0,
    };
  });
}

export interface CreatePairResult {
  connections: number;
  a: SideTotals;
  b: SideTotals;
  /** The median of the rounds' creates/s of a over b. */
  ratio: number;
  wrk?: { a: number; b: number; ratio: number };
}

/**
 * Runs `measure` with `other` stopped (SIGSTOP, then SIGCONT): a service that still has work of its own
 * (deliveries behind its creates) would otherwise take the measured one's core between its rounds.
 */
function aloneOf(other: LocalService): <T>(measure: () => T) => T {
  return (measure) => {
    process.kill(other.pid, 'SIGSTOP');
    let result: ReturnType<typeof measure>;
    try {
      result = measure();
    } catch (error) {
      process.kill(other.pid, 'SIGCONT');
      throw error;
    }
    if (result instanceof Promise) return result.finally(() => process.kill(other.pid, 'SIGCONT')) as typeof result;
    process.kill(other.pid, 'SIGCONT');
    return result;
  };
}

/**
 * create on service a against service b, alternately at 64 connections, wrk in the same rounds if
 * asked; with `alone`, each measured while the other is stopped.
 */
export async function compareCreates(
  a: LocalService,
  b: LocalService,
  load: CompareLoad,
  alone = false,
): Promise<CreatePairResult> {
  const aTarget = targetOf(a.apiUrl, a.key);
  const bTarget = targetOf(b.apiUrl, b.key);
  const aPrepared = await SCENARIOS.create.prepare(aTarget);
  const bPrepared = await SCENARIOS.create.prepare(bTarget);
  const aAlone = alone ? aloneOf(b) : undefined;
  const bAlone = alone ? aloneOf(a) : undefined;
  const wrk = wrkRounds(
    { origin: aTarget.origin, spec: aPrepared.requests[0] as RequestSpec, ...(aAlone && { alone: aAlone }) },
    { origin: bTarget.origin, spec: bPrepared.requests[0] as RequestSpec, ...(bAlone && { alone: bAlone }) },
    CREATE_CONNECTIONS,
  );
  const connections = { connections: CREATE_CONNECTIONS };
  const aSide = side(aTarget.origin, aPrepared, SCENARIOS.create, load, connections, [
    processProbe(SERVICE_PROBE, a.pid),
  ]);
  const bSide = side(bTarget.origin, bPrepared, SCENARIOS.create, load, connections, [
    processProbe(SERVICE_PROBE, b.pid),
  ]);
  const [aTotals, bTotals] = await alternate(
    aAlone === undefined ? aSide : (ms) => aAlone(() => aSide(ms)),
    bAlone === undefined ? bSide : (ms) => bAlone(() => bSide(ms)),
    load,
    load.crossCheck === true ? wrk.afterRound : undefined,
  );
  const result: CreatePairResult = {
    connections: CREATE_CONNECTIONS,
    a: aTotals,
    b: bTotals,
    ratio: medianRatio(aTotals.roundRequestsPerSecond, bTotals.roundRequestsPerSecond),
  };
  if (wrk.runsA.length > 0) {
    const summary = wrkSummary(wrk.runsA, wrk.runsB);
    result.wrk = { a: summary.a, b: summary.b, ratio: summary.ratio };
  }
  return result;
}

export interface DurabilityResult {
  connections: number;
  always: SideTotals;
  never: SideTotals;
  /** The median of the rounds' creates/s with fsync always over creates/s with never. */
  ratio: number;
  /** The same comparison made with wrk in the same rounds (--cross-check). */
  wrk?: { always: number; never: number; ratio: number };
}

/** create with durability always against never, each on its own service, at 64 connections. */
export async function compareDurability(load: CompareLoad): Promise<DurabilityResult> {
  const always = await startLocalService({ durability: 'always', pets: 0 });
  const never = await startLocalService({ durability: 'never', pets: 0 });
  try {
    load.log(
      `create: durability always and never alternately at ${CREATE_CONNECTIONS} connections` +
        (load.crossCheck === true ? ', each round also by wrk' : ''),
    );
    const pair = await compareCreates(always, never, load);
    return {
      connections: pair.connections,
      always: pair.a,
      never: pair.b,
      ratio: pair.ratio,
      ...(pair.wrk !== undefined && { wrk: { always: pair.wrk.a, never: pair.wrk.b, ratio: pair.wrk.ratio } }),
    };
  } finally {
    await always.close();
    await never.close();
  }
}

export interface HalfPeakResult {
  peakRequestsPerSecond: number;
  ratePerSecond: number;
  paced: SideTotals;
  /** The bare node:http baseline at the same rate: the latency floor of this machine and load generator. */
  baseline: SideTotals;
}

/**
 * list at half of its peak rate (peak measured here unless given), latency from the intended send
 * times, alternately with the baseline at the same rate: on a small machine the load generator shares
 * the CPU, and the baseline's p99 shows how much of the service's is the machine's.
 */
export function listAtHalfPeak(load: CompareLoad, peakRequestsPerSecond?: number): Promise<HalfPeakResult> {
  return withService('always', SMALL_STORE_PETS, async (_service, target) => {
    const prepared = await SCENARIOS.list.prepare(target);
    let peak = peakRequestsPerSecond;
    if (peak === undefined) {
      const flatOut = side(target.origin, prepared, SCENARIOS.list, load);
      await flatOut(WARMUP_MS);
      peak = totals([await flatOut(load.durationMs / 2)]).requestsPerSecond;
    }
    const ratePerSecond = halfOfPeakRate(peak);
    load.log(
      `list: peak ${Math.round(peak)} req/s; now at a fixed ${ratePerSecond} req/s, alternately with the baseline`,
    );
    const baseline = await startBaseline(await captureAnswer(target, prepared.requests[0] as RequestSpec));
    try {
      const [paced, bare] = await alternate(
        side(target.origin, prepared, SCENARIOS.list, load, { ratePerSecond }),
        side(baseline.origin, prepared, SCENARIOS.list, load, { ratePerSecond }),
        load,
      );
      return { peakRequestsPerSecond: peak, ratePerSecond, paced, baseline: bare };
    } finally {
      await baseline.close();
    }
  });
}

export interface AdmissionResult {
  /** CPU per admitted request: address check, key lookup, both buckets, headers. */
  admissionNs: number;
  /** The service's CPU per list answer at full speed. */
  routeNs: number;
  /** admissionNs / routeNs. */
  share: number;
  requestsPerSecond: number;
}

/** The CPU share of authentication and the limiter in the list route (see admission-cost.ts). */
export function compareAdmission(load: CompareLoad): Promise<AdmissionResult> {
  return withService('always', SMALL_STORE_PETS, async (service, target) => {
    const prepared = await SCENARIOS.list.prepare(target);
    const flatOut = side(target.origin, prepared, SCENARIOS.list, load);
    await flatOut(WARMUP_MS);
    load.log("limiter: the service's CPU time per list answer, then the admission path in-process");
    const cpuBefore = processCpuMs(service.pid);
    const run = await flatOut(load.durationMs);
    const cpuAfter = processCpuMs(service.pid);
    if (cpuBefore === undefined || cpuAfter === undefined)
      throw new Error("the service's CPU time is read from /proc, which this system lacks");
    const routeNs = ((cpuAfter - cpuBefore) * 1e6) / run.completed;
    const admissionNs = admissionNanoseconds();
    return {
      admissionNs,
      routeNs,
      share: admissionNs / routeNs,
      requestsPerSecond: (run.completed * 1000) / run.elapsedMs,
    };
  });
}

export interface GeneratorResult {
  /** Requests/s of this bench's load loop, of autocannon and of wrk (where installed), each the median round. */
  bench: number;
  autocannon: number;
  wrk: number | undefined;
  /** Medians of the per-round ratios. */
  benchOverAutocannon: number;
  benchOverWrk: number | undefined;
  /** The largest share of its cores the bench's loop used in a round. */
  generatorShare: number;
}

/**
 * The load generator against autocannon (and wrk): each drives the bare baseline (answering the list
 * page's bytes) with the same connections from the generator's cores, in alternating rounds. A
 * generator that drives fewer requests than autocannon against a server doing no work would measure
 * itself, not the service.
 */
export function compareGenerators(load: CompareLoad): Promise<GeneratorResult> {
  return withService('always', SMALL_STORE_PETS, async (_service, target) => {
    const prepared = await SCENARIOS.list.prepare(target);
    const spec = prepared.requests[0] as RequestSpec;
    const baseline = await startBaseline(await captureAnswer(target, spec));
    const { default: autocannon } = await import('autocannon');
    const url = `${baseline.origin}${spec.path}`;
    const seconds = Math.max(1, Math.round(load.durationMs / load.rounds / 1000));
    const cpus = pinnedGeneratorCpus();
    const ours = side(baseline.origin, prepared, SCENARIOS.list, load);
    const theirs = async (): Promise<number> => {
      const result = await autocannon({ url, connections: load.connections, duration: seconds, headers: spec.headers });
      if (result.errors + result.timeouts + result.non2xx > 0)
        throw new Error('autocannon got errors from the baseline');
      return result.requests.total / result.duration;
    };
    try {
      load.log(
        `generator: this bench, autocannon${hasWrk() ? ' and wrk' : ''} alternately against the baseline, ${load.rounds} rounds of ${seconds}s`,
      );
      await ours(WARMUP_MS);
      await autocannon({ url, connections: load.connections, duration: 1, headers: spec.headers });
      const benchRuns: number[] = [];
      const autocannonRuns: number[] = [];
      const wrkRuns: number[] = [];
      const shares: number[] = [];
      for (let round = 0; round < load.rounds; round++) {
        const run = await ours(seconds * 1000);
        benchRuns.push((run.completed * 1000) / run.elapsedMs);
        shares.push(totals([run]).generatorShare);
        autocannonRuns.push(await theirs());
        if (hasWrk()) wrkRuns.push(wrkRequestsPerSecond(baseline.origin, spec, load.connections, seconds, cpus));
      }
      return {
        bench: median(benchRuns),
        autocannon: median(autocannonRuns),
        wrk: wrkRuns.length > 0 ? median(wrkRuns) : undefined,
        benchOverAutocannon: medianRatio(benchRuns, autocannonRuns),
        benchOverWrk: wrkRuns.length > 0 ? medianRatio(benchRuns, wrkRuns) : undefined,
        generatorShare: Math.max(...shares),
      };
    } finally {
      await baseline.close();
    }
  });
}
