// Entry of `npm run bench:compare -- [options]`: measures the performance targets on this machine and prints
// one table (measured value, target, pass or miss), and the same as JSON with --json FILE.
//   generator           this bench's load loop / autocannon, against the bare baseline  ≥ 0.95
//   list, get           service / bare node:http baseline answering the same bytes   ≥ 0.65, ≥ 0.80
//   deep-page           p50 of a page 90 % into 1,000,000 pets / p50 of the first page  ≤ 1.2
//   create              creates/s with fsync always / with never, 64 connections       ≥ 0.80
//   startup             replay of 1,000,000 pets                                        ≤ 2 s, ≤ 300 B/pet
//   latency             list p99 at half of the peak rate                               ≤ 5 ms
//   limiter             CPU of authentication + limiter / CPU of a list answer           ≤ 5 %
//   create-before       creates/s with events / of the build before them (--before DIR)  ≥ 0.95
//   create-webhooks     creates/s with 10 subscriptions / with none                      ≥ 0.80
//   backends            service CPU a request on get, list, create with PostgreSQL and/or Redis
//                       / embedded store + in-memory limiter: Redis limiter ≤ 1.25 (reads),
//                       PostgreSQL ≤ 1.5 (reads), ≤ 2 (create); the servers' CPU beside; reads
//                       judged at 200 connections (busy), the asked ones reported beside
//   instructions        instructions a request (callgrind) of the service and of bare node:http on
//                       get, list, create, and their ratio beside the CPU ratios (information)
//   side-by-side        CPU a request on get and list, this build / the build at --before DIR, both
//                       serving at once on one core (information: a change's cost on a noisy machine)
// Exit code 0 whatever the figures (a miss is information, not a broken run); 1 on a failed run.
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { DEFAULT_CONNECTIONS, DEFAULT_TIMEOUT_MS, parseTimeMs } from './args.js';
import { backendRows } from './backends-report.js';
import {
  BUSY_CONNECTIONS,
  compareBackends,
  INSTRUCTION_BACKINGS,
  isInstructionBacking,
  startInstructionBacking,
} from './backends.js';
import {
  type CompareLoad,
  compareAdmission,
  CREATE_CONNECTIONS,
  compareDeepPage,
  compareDurability,
  type CreatePairResult,
  compareGenerators,
  compareWithBaseline,
  hasWrk,
  DEEP_STORE_PETS,
  listAtHalfPeak,
  roundSpreadText,
  SERVICE_PROBE,
  type SideTotals,
  WARMUP_MS,
} from './compare-checks.js';
import { cpuBeside } from './cpu-report.js';
import { compareWithBuildBefore, compareWithSubscriptions } from './events-checks.js';
import {
  countInstructions,
  DEFAULT_BATCH_REQUESTS,
  hasValgrind,
  INSTRUCTION_CONNECTIONS,
  INSTRUCTION_SCENARIOS,
  type InstructionFigures,
} from './instructions.js';
import { isGeneratorBound, pinGenerator } from './pinning.js';
import { drawTable, formatJudgedRatio, formatNumber } from './report.js';
import type { SCENARIOS } from './scenarios.js';
import { compareSideBySide, SIDE_BY_SIDE_SCENARIOS } from './side-by-side.js';
import { DEFAULT_STARTUP_PETS, runStartup } from './startup.js';

const CHECKS = ['generator', 'list', 'get', 'deep-page', 'create', 'startup', 'latency', 'limiter'] as const;
/**
 * Checks run only when named: create-before and side-by-side need an earlier build, create-webhooks is
 * the events' cost, backends needs PostgreSQL and Redis, instructions needs valgrind (and ten minutes).
 */
const NAMED_CHECKS = ['create-before', 'create-webhooks', 'backends', 'instructions', 'side-by-side'] as const;
/** Scenarios that may be compared with the baseline besides the default two. */
const RATIO_SCENARIOS = ['list', 'get', 'list-status', 'deep-page', 'unauthorized'] as const;

export const COMPARE_HELP = `Usage: npm run bench:compare -- [options]

Measures the performance targets on local services (child processes) and prints a table.

Options:
  --checks LIST        Comma-separated: ${CHECKS.join(', ')}, or a scenario to compare
                       with the baseline (${RATIO_SCENARIOS.join(', ')}), or
                       ${NAMED_CHECKS.join(', ')} [the first eight]
  --before DIR         For create-before and side-by-side: the root of a checkout of an earlier
                       build (its node_modules in place), whose bench/service-child.ts is run
  -d, --duration TIME  Measured time per side of each comparison [10s]
  --rounds N           Alternations per comparison (the duration is split over them) [4]
  -c, --connections N  Connections (create always uses 64) [${DEFAULT_CONNECTIONS}]
  -p, --pipelining N   Requests in flight per connection [1]
  --pets N             Pets for deep-page and startup [${DEEP_STORE_PETS}]
  --cross-check        Also run wrk (an independent generator), pinned alike, on the same pair in
                       every round of the throughput checks, and print its ratio beside
  --no-pin             Do not pin the services and the generator to separate cores
  --instruction-requests N
                       For instructions: requests of each of the 3 measured batches, after a
                       warm-up of 12,000 [${DEFAULT_BATCH_REQUESTS}]
  --callgrind-dir DIR  For instructions: keep callgrind's dumps in DIR (callgrind.out.PID.N, one a
                       batch), for callgrind_annotate [a temporary directory, removed]
  --instructions-on B  For instructions: the service's backends, ${INSTRUCTION_BACKINGS.join(', ')} (the embedded
                       store with the Redis limiter, or PostgreSQL with in-memory limits, started as
                       backends starts them) [memory]
  --json FILE          Also write every figure as JSON to FILE

backends needs PostgreSQL (ANIMAL_STORE_BENCH_DATABASE_URL, by default the local server; a database of
its own is made and dropped) and Redis (ANIMAL_STORE_BENCH_REDIS_URL, by default a redis-server of its
own, where one is installed), kept on the generator's cores. It measures get and list at -c connections
(information) and again at ${BUSY_CONNECTIONS}, where each configuration keeps its core busy and the targets are
judged (once, judged, when -c is ${BUSY_CONNECTIONS} or more); create at ${CREATE_CONNECTIONS}.

instructions runs the service and the baseline under valgrind's callgrind (node's JIT as it is, with
--smc-check=all-non-file) at ${INSTRUCTION_CONNECTIONS} connections, and counts the instructions of every thread of each
process over fixed batches of requests (bench/instructions.ts says how); it is skipped where valgrind
is not installed.

Services are pinned to core 0 and this generator to the other cores with taskset, where it exists;
the generator's own CPU is measured in every run, and a throughput ratio it limited is reported as
generator-bound, never as a number.
`;

/** The throughput targets: service requests/s over the bare baseline's. */
const RATIO_TARGETS: Record<string, number> = { list: 0.65, get: 0.8, 'list-status': 0.65, unauthorized: 0.65 };
/** creates/s with durability always over creates/s with never, at least. */
const CREATE_TARGET = 0.8;

interface Row {
  check: string;
  measured: string;
  target: string;
  pass: boolean;
}

const rps = (side: SideTotals): string => `${formatNumber(side.requestsPerSecond)} req/s`;
/** The per-round ratios of a over b, lowest and highest: how much the machine moved the median's rounds. */
const spread = (a: SideTotals, b: SideTotals): string =>
  roundSpreadText(a.roundRequestsPerSecond, b.roundRequestsPerSecond);

/** The rows of a create comparison: the bench's ratio (or generator-bound), and wrk's beside it. */
function createPairRows(what: string, target: number, result: CreatePairResult): Row[] {
  const bound = Math.max(result.a.generatorShare, result.b.generatorShare);
  const rows: Row[] = [
    {
      check: `${what} (${result.connections} connections)`,
      measured: isGeneratorBound(bound)
        ? `generator-bound (the generator used ${(bound * 100).toFixed(0)} % of its cores; no ratio)`
        : `${formatJudgedRatio(result.ratio, target, 'at least')} (${rps(result.a)} / ${rps(result.b)}; ${spread(result.a, result.b)}; generator at ${(bound * 100).toFixed(0)} %; ${cpuBeside(result.a, result.b, SERVICE_PROBE)})`,
      target: `≥ ${target}`,
      pass: !isGeneratorBound(bound) && result.ratio >= target,
    },
  ];
  if (result.wrk !== undefined)
    rows.push({
      check: `${what} (${result.connections} connections), by wrk`,
      measured: `${formatJudgedRatio(result.wrk.ratio, target, 'at least')} (${formatNumber(result.wrk.a)} / ${formatNumber(result.wrk.b)} req/s)`,
      target: `≥ ${target}`,
      pass: result.wrk.ratio >= target,
    });
  return rows;
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      checks: { type: 'string' },
      duration: { type: 'string', short: 'd' },
      rounds: { type: 'string' },
      connections: { type: 'string', short: 'c' },
      pipelining: { type: 'string', short: 'p' },
      pets: { type: 'string' },
      'cross-check': { type: 'boolean' },
      'no-pin': { type: 'boolean' },
      json: { type: 'string' },
      before: { type: 'string' },
      'instruction-requests': { type: 'string' },
      'callgrind-dir': { type: 'string' },
      'instructions-on': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help === true) {
    process.stdout.write(COMPARE_HELP);
    return 0;
  }
  const checks = (values.checks ?? CHECKS.join(','))
    .split(',')
    .map((check) => check.trim())
    .filter((check) => check !== '');
  for (const check of checks) {
    const known: readonly string[] = [...CHECKS, ...RATIO_SCENARIOS, ...NAMED_CHECKS];
    if (!known.includes(check))
      throw new TypeError(`--checks: unknown check "${check}"; use ${[...new Set(known)].join(', ')}`);
    if ((check === 'create-before' || check === 'side-by-side') && values.before === undefined)
      throw new TypeError(`--checks ${check} needs --before DIR, a checkout of the build to compare with`);
    if (check === 'side-by-side' && !hasWrk())
      throw new TypeError('--checks side-by-side needs wrk (apt-get install wrk)');
  }
  const instructionsOn = values['instructions-on'] ?? 'memory';
  if (!isInstructionBacking(instructionsOn))
    throw new TypeError(`--instructions-on must be one of ${INSTRUCTION_BACKINGS.join(', ')}, not "${instructionsOn}"`);
  const positive = (text: string | undefined, fallback: number, name: string): number => {
    if (text === undefined) return fallback;
    if (!/^[1-9][0-9]*$/.test(text)) throw new TypeError(`${name} must be a positive whole number, not "${text}"`);
    return Number(text);
  };
  const load: CompareLoad = {
    connections: positive(values.connections, DEFAULT_CONNECTIONS, '--connections'),
    pipelining: positive(values.pipelining, 1, '--pipelining'),
    durationMs: values.duration === undefined ? 10_000 : parseTimeMs(values.duration, '--duration'),
    rounds: positive(values.rounds, 4, '--rounds'),
    timeoutMs: DEFAULT_TIMEOUT_MS,
    workers: 1,
    crossCheck: values['cross-check'] === true,
    log: (line) => process.stderr.write(`${line}\n`),
  };
  if (load.crossCheck === true && !hasWrk()) throw new TypeError('--cross-check needs wrk (apt-get install wrk)');
  const pinning = values['no-pin'] === true ? { plan: undefined, note: 'not pinned (--no-pin)' } : pinGenerator();
  // One load thread per core the generator was given: a single thread saturates one service core.
  load.workers = pinning.plan?.generatorCores ?? 1;
  load.log(pinning.note);
  const pets = positive(values.pets, DEEP_STORE_PETS, '--pets');
  const rows: Row[] = [];
  const figures: Record<string, unknown> = {
    machine: { cpus: (await import('node:os')).availableParallelism(), node: process.version },
    load: { ...load, log: undefined },
    pinning: pinning.note,
  };
  let failed = false;
  const note = (side: SideTotals, what: string): void => {
    if (side.unexpected > 0) {
      failed = true;
      load.log(`${what}: ${side.unexpected} unexpected answers, errors or timeouts: ${side.problems.join('; ')}`);
    }
  };

  for (const check of checks) {
    if ((RATIO_SCENARIOS as readonly string[]).includes(check) && check !== 'deep-page') {
      const result = await compareWithBaseline(check as keyof typeof SCENARIOS, load);
      note(result.service, check);
      figures[check] = result;
      const bound = Math.max(result.service.generatorShare, result.baseline.generatorShare);
      const target = RATIO_TARGETS[check] ?? 0.85;
      // A ratio the generator limited is never printed: it would measure the generator.
      rows.push(
        isGeneratorBound(bound)
          ? {
              check: `${check}: service / baseline`,
              measured: `generator-bound (the generator used ${(bound * 100).toFixed(0)} % of its cores; no ratio; ${cpuBeside(result.service, result.baseline, SERVICE_PROBE)})`,
              target: `≥ ${target}`,
              pass: false,
            }
          : {
              check: `${check}: service / baseline`,
              measured: `${formatJudgedRatio(result.ratio, target, 'at least')} (${rps(result.service)} / ${rps(result.baseline)}; ${spread(result.service, result.baseline)}; generator at ${(bound * 100).toFixed(0)} %; ${cpuBeside(result.service, result.baseline, SERVICE_PROBE)})`,
              target: `≥ ${target}`,
              pass: result.ratio >= target,
            },
      );
      if (result.wrk !== undefined)
        rows.push({
          check: `${check}: service / baseline, by wrk`,
          measured: `${formatJudgedRatio(result.wrk.ratio, target, 'at least')} (${formatNumber(result.wrk.service)} / ${formatNumber(result.wrk.baseline)} req/s)`,
          target: `≥ ${target}`,
          pass: result.wrk.ratio >= target,
        });
    } else if (check === 'generator') {
      const result = await compareGenerators(load);
      figures[check] = result;
      rows.push({
        check: 'generator: this bench / autocannon, bare baseline',
        measured: `${result.benchOverAutocannon.toFixed(2)} (${formatNumber(result.bench)} / ${formatNumber(result.autocannon)} req/s; bench at ${(result.generatorShare * 100).toFixed(0)} % of its cores)`,
        target: '≥ 0.95',
        pass: result.benchOverAutocannon >= 0.95,
      });
      if (result.wrk !== undefined && result.benchOverWrk !== undefined)
        rows.push({
          check: 'generator: this bench / wrk, bare baseline',
          measured: `${result.benchOverWrk.toFixed(2)} (${formatNumber(result.bench)} / ${formatNumber(result.wrk)} req/s)`,
          target: '(information)',
          pass: true,
        });
    } else if (check === 'deep-page') {
      const result = await compareDeepPage(load, pets);
      note(result.deepPage, check);
      figures[check] = result;
      rows.push({
        check: `deep-page p50 / first page p50 (${formatNumber(result.pets)} pets)`,
        measured: `${result.p50Ratio.toFixed(2)} (${result.deepPage.p50Ms} ms / ${result.firstPage.p50Ms} ms; ${rps(result.deepPage)} / ${rps(result.firstPage)}; ${cpuBeside(result.deepPage, result.firstPage, SERVICE_PROBE)})`,
        target: '≤ 1.2',
        pass: result.p50Ratio <= 1.2,
      });
    } else if (check === 'create') {
      const result = await compareDurability(load);
      note(result.always, check);
      note(result.never, check);
      figures[check] = result;
      const bound = Math.max(result.always.generatorShare, result.never.generatorShare);
      rows.push({
        check: `create always / never (${result.connections} connections)`,
        measured: isGeneratorBound(bound)
          ? `generator-bound (the generator used ${(bound * 100).toFixed(0)} % of its cores; no ratio)`
          : `${formatJudgedRatio(result.ratio, CREATE_TARGET, 'at least')} (${rps(result.always)} / ${rps(result.never)}; ${spread(result.always, result.never)}; generator at ${(bound * 100).toFixed(0)} %; ${cpuBeside(result.always, result.never, SERVICE_PROBE)})`,
        target: `≥ ${CREATE_TARGET.toFixed(2)}`,
        pass: !isGeneratorBound(bound) && result.ratio >= CREATE_TARGET,
      });
      if (result.wrk !== undefined)
        rows.push({
          check: `create always / never (${result.connections} connections), by wrk`,
          measured: `${formatJudgedRatio(result.wrk.ratio, CREATE_TARGET, 'at least')} (${formatNumber(result.wrk.always)} / ${formatNumber(result.wrk.never)} req/s)`,
          target: `≥ ${CREATE_TARGET.toFixed(2)}`,
          pass: result.wrk.ratio >= CREATE_TARGET,
        });
    } else if (check === 'startup') {
      const result = await runStartup(pets === DEEP_STORE_PETS ? DEFAULT_STARTUP_PETS : pets, load.log);
      figures[check] = result;
      rows.push({
        check: `startup: replay of ${formatNumber(result.pets)} pets`,
        measured: `${formatNumber(result.startMs)} ms`,
        target: '≤ 2,000 ms',
        pass: result.startMs <= 2000,
      });
      rows.push({
        check: 'startup: resident memory per pet',
        measured: `${result.rssBytesPerPet.toFixed(0)} B (RSS ${formatNumber(result.rssBytes / 1e6, 1)} MB; empty ${formatNumber(result.emptyRssBytes / 1e6, 1)} MB)`,
        target: '≤ 300 B',
        pass: result.rssBytesPerPet <= 300,
      });
    } else if (check === 'create-before' || check === 'create-webhooks') {
      const webhooks = check === 'create-webhooks' ? await compareWithSubscriptions(load) : undefined;
      const result: CreatePairResult = webhooks ?? (await compareWithBuildBefore(load, values.before as string));
      note(result.a, check);
      note(result.b, check);
      figures[check] = result;
      rows.push(
        ...(webhooks === undefined
          ? createPairRows('create: this build / the build before events', 0.95, result)
          : createPairRows('create: 10 subscriptions / none', 0.8, result)),
      );
      if (webhooks !== undefined)
        rows.push({
          check: 'create-webhooks: deliveries',
          measured:
            `${formatNumber(webhooks.deliveredByEnd)} of ${formatNumber(webhooks.dueByEnd)} received during the rounds ` +
            `(held back behind the saturated API); ` +
            (webhooks.drained
              ? 'the rest arrived after them'
              : `then ${formatNumber(webhooks.drainPerSecond)} a second, the rest in about ` +
                `${formatNumber((webhooks.dueByEnd - webhooks.deliveredByEnd) / Math.max(webhooks.drainPerSecond, 1), 0)} s`) +
            `; receivers at ${(webhooks.receiverCoreShare * 100).toFixed(0)} % of a core`,
          target: '(information)',
          pass: webhooks.drained || webhooks.drainPerSecond > 0,
        });
    } else if (check === 'backends') {
      const results = await compareBackends(load);
      figures[check] = results;
      for (const result of results) {
        for (const figure of result.figures)
          note(figure.totals, `${check} ${result.scenario} at ${result.connections} connections, ${figure.backend}`);
        rows.push(...backendRows(result));
      }
    } else if (check === 'instructions') {
      if (!hasValgrind()) {
        load.log('instructions: skipped, valgrind (with callgrind_control) is not installed');
        continue;
      }
      const batch = positive(values['instruction-requests'], DEFAULT_BATCH_REQUESTS, '--instruction-requests');
      const backing = await startInstructionBacking(instructionsOn);
      let results: InstructionFigures[];
      try {
        load.log(`instructions: the service on ${backing.describe}`);
        results = await countInstructions(
          INSTRUCTION_SCENARIOS,
          batch,
          load.log,
          values['callgrind-dir'],
          backing.options,
        );
      } finally {
        await backing.stop();
      }
      figures[check] = results;
      const thousands = (values: readonly number[]): string =>
        values.map((value) => formatNumber(value / 1000, 1)).join(', ');
      for (const result of results)
        rows.push({
          check: `instructions: ${result.scenario} service${instructionsOn === 'memory' ? '' : ` (${instructionsOn})`} / baseline (callgrind)`,
          measured: `${result.ratio.toFixed(2)} (thousands a request, ${result.batchRequests} each batch: ${thousands(result.service.batches)} / ${thousands(result.bare.batches)})`,
          target: '(information)',
          pass: true,
        });
    } else if (check === 'side-by-side') {
      for (const scenario of SIDE_BY_SIDE_SCENARIOS) {
        const result = await compareSideBySide(scenario, values.before as string, load);
        figures[`${check} ${scenario}`] = result;
        const micros = (values: readonly number[]): string => values.map((value) => value.toFixed(1)).join(', ');
        rows.push({
          check: `${scenario}: CPU a request, this build / the build before, side by side`,
          measured: `${result.ratio.toFixed(3)} (µs a request by round: ${micros(result.thisBuildMicros)} / ${micros(result.beforeMicros)})`,
          target: '(information)',
          pass: true,
        });
      }
    } else if (check === 'limiter') {
      const result = await compareAdmission(load);
      figures[check] = result;
      rows.push({
        check: 'limiter + key lookup: share of list CPU',
        measured: `${(result.share * 100).toFixed(1)} % (${formatNumber(result.admissionNs / 1000, 2)} µs of ${formatNumber(result.routeNs / 1000, 1)} µs per request)`,
        target: '≤ 5 %',
        pass: result.share <= 0.05,
      });
    } else if (check === 'latency') {
      const result = await listAtHalfPeak(load);
      note(result.paced, check);
      figures[check] = result;
      rows.push({
        check: `list p99 at half of peak (${formatNumber(result.ratePerSecond)} of ${formatNumber(result.peakRequestsPerSecond)} req/s)`,
        measured: `${result.paced.p99Ms} ms (p50 ${result.paced.p50Ms} ms; bare node:http at that rate: p99 ${result.baseline.p99Ms} ms)`,
        target: '≤ 5 ms',
        pass: result.paced.p99Ms <= 5,
      });
    }
  }

  process.stdout.write(
    `\n${drawTable([['Check', 'Measured', 'Target', 'Result'], ...rows.map((row) => [row.check, row.measured, row.target, row.pass ? 'pass' : 'MISS'])])}\n`,
  );
  process.stdout.write(
    `${load.connections} connections${checks.some((check) => check.startsWith('create')) && load.connections !== CREATE_CONNECTIONS ? ` (create: ${CREATE_CONNECTIONS})` : ''}, pipelining ${load.pipelining}, ${load.durationMs / 1000}s per side in ${load.rounds} alternating rounds, after ${WARMUP_MS / 1000}s of warm-up each; a ratio is the median of the per-round ratios (their lowest and highest beside it), req/s the mean of the rounds.\n`,
  );
  if (values.json !== undefined) await writeFile(values.json, `${JSON.stringify({ rows, figures }, null, 2)}\n`);
  return failed ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`bench:compare: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = error instanceof TypeError ? 2 : 1;
  },
);
