// bench:compare's side-by-side check: this build against an earlier one (--before DIR), both serving
// at the same time on the same core, each loaded by its own wrk on the generator's cores, and each
// one's CPU time a request read from /proc over the same seconds.
//
// Why: on a shared virtual machine the speed of a core moves by a third within a minute, and rounds
// taken one after the other (the throughput checks) then differ by more than a change of a few per cent
// on the hot path: the per-round ratios of two identical builds spread from 0.8 to 1.25. Served side
// by side, both builds meet the same machine in every round, and the same ratios stay within ±4 %. What
// it measures is CPU time a request of two processes sharing a core, each fed half the connections, so
// it compares two builds of the service with each other, not the service with bare node:http (whose
// smaller program would suffer less from sharing the caches).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { processCpuMs } from './admission-cost.js';
import { type CompareLoad, medianRatio, wrkCommand } from './compare-checks.js';
import type { RequestSpec } from './load.js';
import { type LocalService, withServices } from './local-service.js';
import { pinnedGeneratorCpus } from './pinning.js';
import { targetOf } from './run.js';
import { SCENARIOS } from './scenarios.js';

const runFile = promisify(execFile);

/** The scenarios compared side by side. */
export const SIDE_BY_SIDE_SCENARIOS = ['get', 'list'] as const;
type SideBySideScenario = (typeof SIDE_BY_SIDE_SCENARIOS)[number];
/** Pets in each store (the list scenario's page is full, with a next page). */
const STORE_PETS = 1000;
/** Seconds of load on both before the rounds: each build's JIT settles. */
const WARMUP_SECONDS = 2;

export interface SideBySideResult {
  scenario: SideBySideScenario;
  /** CPU time a request of each build in each round, µs. */
  thisBuildMicros: number[];
  beforeMicros: number[];
  /** The median of the per-round ratios this / before: below 1, this build costs less. */
  ratio: number;
}

/** What wrk reported: requests answered, and answers that were not 2xx or 3xx. */
export interface WrkCount {
  requests: number;
  refused: number;
}

/** The requests and refusals of wrk's report. */
export function wrkCountOf(report: string): WrkCount {
  const answered = /([0-9]+) requests in/.exec(report);
  if (answered === null) throw new Error(`wrk printed no request count: ${report}`);
  const refused = /Non-2xx or 3xx responses:\s+([0-9]+)/.exec(report);
  return { requests: Number(answered[1]), refused: refused === null ? 0 : Number(refused[1]) };
}

/** One wrk run against `origin`, asynchronous so that two can run at once. */
async function wrkCount(origin: string, spec: RequestSpec, connections: number, seconds: number): Promise<WrkCount> {
  const command = wrkCommand(origin, spec, connections, seconds, pinnedGeneratorCpus());
  try {
    const { stdout } = await runFile(command.program, command.args, { encoding: 'utf8' });
    return wrkCountOf(stdout);
  } finally {
    command.cleanup();
  }
}

/** CPU ms of `pid` so far; the check needs /proc. */
function cpuMs(pid: number): number {
  const ms = processCpuMs(pid);
  if (ms === undefined) throw new Error('the side-by-side check reads CPU time from /proc, which this system lacks');
  return ms;
}

/** Both builds loaded at once for `seconds`; each one's CPU µs a request. */
async function roundOf(
  sides: readonly [LocalService, LocalService],
  specs: readonly [RequestSpec, RequestSpec],
  connections: number,
  seconds: number,
): Promise<[number, number]> {
  const before = sides.map((side) => cpuMs(side.pid));
  const counts = await Promise.all(
    sides.map((side, index) =>
      wrkCount(targetOf(side.apiUrl, side.key).origin, specs[index] as RequestSpec, connections, seconds),
    ),
  );
  const after = sides.map((side) => cpuMs(side.pid));
  const micros = counts.map((count, index) => {
    if (count.refused > 0) throw new Error(`wrk got ${count.refused} answers that were not 2xx or 3xx`);
    return (((after[index] as number) - (before[index] as number)) * 1000) / Math.max(count.requests, 1);
  });
  return [micros[0] as number, micros[1] as number];
}

/** `scenario` on this build and on the build at `beforeRoot`, side by side, over `load.rounds` rounds. */
export function compareSideBySide(
  scenario: SideBySideScenario,
  beforeRoot: string,
  load: CompareLoad,
): Promise<SideBySideResult> {
  return withServices(
    [
      { durability: 'always', pets: STORE_PETS },
      { durability: 'always', pets: STORE_PETS, root: beforeRoot },
    ],
    async (thisBuild, earlier) => {
      const sides = [thisBuild, earlier] as const;
      const prepared = await Promise.all(
        sides.map((side) => SCENARIOS[scenario].prepare(targetOf(side.apiUrl, side.key))),
      );
      const specs = [prepared[0]?.requests[0], prepared[1]?.requests[0]] as [RequestSpec, RequestSpec];
      // Each build gets half the connections, so that the two together load the core as one does alone.
      const connections = Math.max(1, Math.round(load.connections / 2));
      const seconds = Math.max(1, Math.round(load.durationMs / load.rounds / 1000));
      load.log(
        `side-by-side ${scenario}: this build and the one at ${beforeRoot} at once, ${load.rounds} rounds of ${seconds}s, ` +
          `${connections} connections each`,
      );
      await roundOf(sides, specs, connections, WARMUP_SECONDS);
      const thisBuildMicros: number[] = [];
      const beforeMicros: number[] = [];
      for (let round = 0; round < load.rounds; round++) {
        const [now, then] = await roundOf(sides, specs, connections, seconds);
        thisBuildMicros.push(now);
        beforeMicros.push(then);
      }
      return { scenario, thisBuildMicros, beforeMicros, ratio: medianRatio(thisBuildMicros, beforeMicros) };
    },
  );
}
