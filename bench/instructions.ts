// Instructions a request, counted by callgrind (valgrind): the service and the bare node:http baseline
// each run under `valgrind --tool=callgrind`, and the same fixed number of requests is sent to both.
// CPU time a request moves with the machine (a shared virtual machine's speed drifts by a third within
// the hour); the instructions a request of one build move by a few per cent, so a change of a few per
// cent on the hot path can be seen, and the service / bare ratio of instructions sits beside the CPU
// ratios of the throughput checks.
//
// How a figure is made, and why:
// - Node runs its real JIT build (no --jitless: that would measure an interpreter nobody runs), so
//   valgrind needs --smc-check=all-non-file to see code V8 writes and rewrites.
// - Each process first answers WARMUP_REQUESTS requests unmeasured: under valgrind, V8's tiers
//   (Sparkplug, TurboFan) and its feedback take thousands of requests to settle, and the first batches
//   cost two to five times the later ones. The service's batches were within 2 to 7 % of each other
//   after 6,000; the bare baseline's, in the same runs, still fell from batch to batch (112,000,
//   90,000, 81,000 a `get` after 6,000, TurboFan still at work), where alone it had settled after
//   5,000: hence 12,000.
//   TurboFan compiles on the main thread (NODE_ARGS says why).
//   Then callgrind_control --dump writes the counts so far and sets them to zero, and after each
//   measured batch of N requests another dump holds that batch alone: instructions a request = the
//   dump's total / N. Every thread of the process counts (the garbage collector's helpers are part of
//   a request's cost), but V8's compilers do not (JIT_COMPILERS says why); the kernel's work does not
//   either (callgrind counts user-space instructions only).
// - The load is this bench's loop at a fixed number of connections (INSTRUCTION_CONNECTIONS): under
//   valgrind the server is a hundred times slower than the generator, so every turn of its event loop
//   finds each connection's next request waiting, as at full speed under bench:compare's load.
// - The two children are bundled first with esbuild (as build:binary bundles the service), each into
//   one plain JavaScript file that node runs without tsx: through tsx's loader thread the service took
//   over five minutes to start under valgrind, bundled about a minute. The code is the same.
// - Each side's figure is the median of its batches; the batches are printed too, as their spread says
//   how far a figure can be trusted.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { startBaseline } from './baseline.js';
import { captureAnswer, median } from './compare-checks.js';
import { runLoad, type RequestSpec } from './load.js';
import { type LocalServiceOptions, ROOT, startLocalService } from './local-service.js';
import { targetOf } from './run.js';
import { type PreparedScenario, SCENARIOS } from './scenarios.js';

/** The scenarios counted: the two read targets, and create (with durability `always`). */
export const INSTRUCTION_SCENARIOS = ['get', 'list', 'create'] as const;
export type InstructionScenario = (typeof INSTRUCTION_SCENARIOS)[number];
/** Connections of the counted load. */
export const INSTRUCTION_CONNECTIONS = 10;
/** Requests of a measured batch, by default. */
export const DEFAULT_BATCH_REQUESTS = 1000;
/** Measured batches of each side. */
const MEASURED_BATCHES = 3;
/** Requests answered unmeasured first (see above). */
const WARMUP_REQUESTS = 12_000;
/**
 * TurboFan compiles on the main thread, the code it makes the same: compiled concurrently, under
 * valgrind's one-thread-at-a-time scheduling, optimised code arrived some thousands of requests later
 * from run to run, and the batches after a warm-up of 1,500 requests differed by half.
 */
const NODE_ARGS = ['--no-concurrent-recompilation'];
/** A store of several pages, as the throughput checks' (list answers a full page and a Link). */
const STORE_PETS = 1000;
/** Under valgrind a request takes a hundred times as long: the loop's timeout is stretched alike. */
const TIMEOUT_MS = 60_000;

export interface InstructionFigures {
  scenario: InstructionScenario;
  /** Requests of each measured batch (after WARMUP_REQUESTS unmeasured). */
  batchRequests: number;
  service: SideCount;
  bare: SideCount;
  /** median(service.batches) / median(bare.batches). */
  ratio: number;
}

/** One side's instructions a request in each measured batch, in order. */
export interface SideCount {
  /** Without V8's compilers (JIT_COMPILERS): the figures compared. */
  batches: number[];
  /** With them, as callgrind counted. */
  withCompiler: number[];
}

/** Whether valgrind (with callgrind_control) can be run here. */
export function hasValgrind(): boolean {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
    execFileSync('callgrind_control', ['-h'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * V8's compilers, whose instructions are taken out of a batch's count (their inclusive cost, read with
 * callgrind_annotate). Under valgrind a request takes fifty times as long, and V8 keeps optimising
 * (again) functions that run by the clock (timers, the access log's second): after 6,000 requests
 * TurboFan still took 2 to 12 % of the service's batches, more in one batch than the next, and made
 * them differ by ±5 %; without it they were within 2 to 7 % of each other (a figure is the median of
 * three). A request's instructions at full speed include almost no compilation. (callgrind's
 * --toggle-collect on these functions left counting off for most of a run.)
 */
export const JIT_COMPILERS = [
  'v8::internal::Compiler::CompileOptimized(',
  'v8::internal::baseline::BaselineBatchCompiler::CompileBatch(',
];

/** The instructions of JIT_COMPILERS in callgrind_annotate's inclusive listing of a dump. */
export function compilerInstructions(annotated: string): number {
  let total = 0;
  for (const line of annotated.split('\n')) {
    // "10,856,963 ( 9.41%)  ???:v8::internal::Compiler::CompileOptimized(v8::internal::Isolate*, …) [/usr/bin/node]"
    const match = /^\s*([0-9,]+)\s+\([^)]*\)\s+[^:]*:(.*)$/.exec(line);
    if (match === null) continue;
    const name = match[2] as string;
    if (JIT_COMPILERS.some((compiler) => name.startsWith(compiler)))
      total += Number((match[1] as string).replaceAll(',', ''));
  }
  return total;
}

/** The command that runs node under callgrind, its counts written into `outDir`. */
export function callgrindWrapper(outDir: string): string[] {
  return [
    'valgrind',
    '--tool=callgrind',
    '--quiet',
    '--smc-check=all-non-file',
    `--callgrind-out-file=${join(outDir, 'callgrind.out.%p')}`,
  ];
}

/** The instructions a callgrind dump counted: its `totals:` line (`summary:` in older dumps). */
export function dumpTotal(text: string): number {
  const match = /^totals:\s+([0-9]+)/m.exec(text) ?? /^summary:\s+([0-9]+)/m.exec(text);
  if (match === null) throw new Error('a callgrind dump without totals');
  return Number(match[1]);
}

/** Asks callgrind in process `pid` to dump its counts (and zero them); returns the dump's file. */
export function dumpCounts(pid: number, outDir: string): string {
  execFileSync('callgrind_control', ['--dump', String(pid)], { stdio: 'ignore' });
  // Dumps are numbered callgrind.out.PID.1, .2, ...: the newest is the one just written.
  const prefix = `callgrind.out.${pid}.`;
  const numbers = readdirSync(outDir)
    .filter((name) => name.startsWith(prefix))
    .map((name) => Number(name.slice(prefix.length)));
  if (numbers.length === 0) throw new Error(`callgrind wrote no dump for process ${pid}`);
  return join(outDir, `${prefix}${Math.max(...numbers)}`);
}

/** Instructions a request of a dump of `requests` requests: every one, and without V8's compilers. */
export function perRequest(file: string, requests: number): { total: number; net: number } {
  const annotated = execFileSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', file], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const total = dumpTotal(readFileSync(file, 'utf8'));
  return { total: total / requests, net: (total - compilerInstructions(annotated)) / requests };
}

/**
 * The service's child and the baseline bundled into `<dir>/service-child.mjs` and `<dir>/baseline.mjs`.
 * The directory lies in the repository, so that what the bundles leave outside (none but node's own
 * modules) and the /docs page's files resolve from its node_modules as from bench/.
 */
export async function bundleChildren(dir: string): Promise<{ service: string; baseline: string }> {
  await build({
    entryPoints: [join(ROOT, 'bench', 'service-child.ts'), join(ROOT, 'bench', 'baseline.ts')],
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: `node${process.versions.node.split('.')[0]}`,
    logLevel: 'warning',
    // CommonJS packages inside an ES module bundle require() node's modules through this.
    banner: {
      js: "import { createRequire as bundleRequire } from 'node:module'; const require = bundleRequire(import.meta.url);",
    },
  });
  return { service: join(dir, 'service-child.mjs'), baseline: join(dir, 'baseline.mjs') };
}

/** Of a batch, this share at most may fail (see send); more fails the check. */
const TOLERATED_FAILURES = 0.01;

/**
 * Sends `amount` requests of a prepared scenario to `origin`; resolves with the answers received. An
 * answer with another status fails the check; a reset does not, up to TOLERATED_FAILURES: under
 * valgrind on a busy machine a server now and then reads a kept-alive connection's next request only
 * after its keep-alive time (5 s) has run out, and closes it under the request, the race every
 * HTTP/1.1 keep-alive has. A figure is instructions over the answers received.
 */
async function send(
  origin: string,
  prepared: PreparedScenario,
  scenario: InstructionScenario,
  amount: number,
): Promise<number> {
  const result = await runLoad({
    origin,
    connections: INSTRUCTION_CONNECTIONS,
    pipelining: 1,
    durationMs: undefined,
    amount,
    ratePerSecond: undefined,
    timeoutMs: TIMEOUT_MS,
    nextRequest: (index) => prepared.requests[index % prepared.requests.length] as RequestSpec,
    expectedStatuses: new Set(SCENARIOS[scenario].expectedStatuses),
  });
  const failures = result.errors + result.timeouts;
  if (result.unexpected > 0 || failures > amount * TOLERATED_FAILURES)
    throw new Error(
      `${scenario}: ${result.unexpected} unexpected answers, ${failures} failed requests under valgrind: ${result.problems[0]}`,
    );
  return result.completed;
}

/**
 * The warm-up, a dump to drop it, then each measured batch's instructions a request. The batches follow
 * one another with only a dump between: the dumps are read once all are written, as a process left idle
 * for the seconds that reading takes had V8 optimise code again in the next batch.
 */
async function countSide(
  pid: number,
  outDir: string,
  origin: string,
  prepared: PreparedScenario,
  scenario: InstructionScenario,
  batchRequests: number,
): Promise<SideCount> {
  await send(origin, prepared, scenario, WARMUP_REQUESTS);
  dumpCounts(pid, outDir);
  const batches: { file: string; answers: number }[] = [];
  for (let batch = 0; batch < MEASURED_BATCHES; batch++) {
    const answers = await send(origin, prepared, scenario, batchRequests);
    batches.push({ file: dumpCounts(pid, outDir), answers });
  }
  const counts = batches.map((batch) => perRequest(batch.file, batch.answers));
  return { batches: counts.map((count) => count.net), withCompiler: counts.map((count) => count.total) };
}

/**
 * Instructions a request of the service (embedded store with 1,000 pets, durability always, the access
 * log on, the in-memory limiter, unless `backing` names other servers) and of the bare baseline
 * answering its bytes, for each scenario: one service process for them all (create last, as it grows
 * the store), a baseline for each.
 */
export async function countInstructions(
  scenarios: readonly InstructionScenario[],
  batchRequests: number,
  log: (line: string) => void,
  keepDir?: string,
  backing: Partial<LocalServiceOptions> = {},
): Promise<InstructionFigures[]> {
  // Kept when asked for, for callgrind_annotate (which names node's and V8's own functions, not the JIT's code).
  const outDir = keepDir ?? mkdtempSync(join(tmpdir(), 'animal-store-callgrind-'));
  mkdirSync(outDir, { recursive: true });
  const wrapper = callgrindWrapper(outDir);
  const ordered = INSTRUCTION_SCENARIOS.filter((scenario) => scenarios.includes(scenario));
  const bundleDir = mkdtempSync(join(ROOT, '.bench-bundle-'));
  try {
    const scripts = await bundleChildren(bundleDir);
    log('instructions: starting the service under callgrind (a minute or two)');
    const service = await startLocalService({
      durability: 'always',
      pets: STORE_PETS,
      wrapper,
      script: scripts.service,
      nodeArgs: NODE_ARGS,
      ...backing,
    });
    const results: InstructionFigures[] = [];
    try {
      const target = targetOf(service.apiUrl, service.key);
      for (const scenario of ordered) {
        const prepared = await SCENARIOS[scenario].prepare(target);
        const spec = prepared.requests[0] as RequestSpec;
        const answer = await captureAnswer(target, spec);
        log(
          `instructions: ${scenario}, ${WARMUP_REQUESTS} requests, then ${MEASURED_BATCHES} batches of ${batchRequests}, on the service (process ${service.pid})`,
        );
        const serviceFigures = await countSide(service.pid, outDir, target.origin, prepared, scenario, batchRequests);
        const baseline = await startBaseline(answer, { wrapper, script: scripts.baseline, nodeArgs: NODE_ARGS });
        let bareFigures: SideCount;
        try {
          log(`instructions: ${scenario}, the same on the bare baseline (process ${baseline.pid})`);
          bareFigures = await countSide(baseline.pid, outDir, baseline.origin, prepared, scenario, batchRequests);
        } finally {
          await baseline.close();
        }
        results.push({
          scenario,
          batchRequests,
          service: serviceFigures,
          bare: bareFigures,
          ratio: median(serviceFigures.batches) / median(bareFigures.batches),
        });
      }
    } finally {
      await service.close();
    }
    return results;
  } finally {
    rmSync(bundleDir, { recursive: true, force: true });
    if (keepDir === undefined) rmSync(outDir, { recursive: true, force: true });
  }
}
