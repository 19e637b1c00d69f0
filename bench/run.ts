// Entry of `npm run bench -- [options]` and `animal-store bench`: parses the options, starts a local
// service unless --url is given (seeded as the scenario needs, removed afterwards), runs the scenario,
// prints the table (or only JSON with --quiet), writes --json FILE, and exits 1 when any answer had a
// status the scenario did not expect (or an error, a timeout, a failed check), 2 on a bad option.
import { writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { Agent, setGlobalDispatcher } from 'undici';
import { BENCH_HELP, type BenchOptions, parseBenchArgs } from './args.js';
import { runThreadedLoad } from './load-workers.js';
import { type Progress, runLoad } from './load.js';
import { type LocalService, startLocalService } from './local-service.js';
import { runOverLimit } from './over-limit.js';
import { type BenchReport, buildReport, formatBytes, formatNumber, formatReport, type RunMeta } from './report.js';
import { fetchJson, SCENARIOS, type Target } from './scenarios.js';
import { DEFAULT_STARTUP_PETS, runStartup, type StartupResult } from './startup.js';

/** Where a run writes: the report on `print` (stdout), progress and steps on `printErr` (stderr). */
export interface BenchIo {
  print(text: string): void;
  printErr(text: string): void;
  /** Whether stderr is a terminal: the progress line then rewrites itself in place. */
  isTty: boolean;
}

/** A progress line per PLAIN_PROGRESS_MS when stderr is not a terminal (logs of CI runs stay short). */
const PLAIN_PROGRESS_MS = 5000;
const TTY_PROGRESS_MS = 250;
/** Connections used to create missing pets on a deployment (--url --pets N). */
const SEED_CONNECTIONS = 16;

/** Splits an API address into origin and base path. */
export function targetOf(apiUrl: string, key: string | undefined): Target {
  const url = new URL(apiUrl);
  return { origin: url.origin, basePath: url.pathname.replace(/\/+$/, ''), key };
}

function progressPrinter(
  io: BenchIo,
  label: string,
  totalText: string,
): { onProgress: (progress: Progress) => void; intervalMs: number; done: () => void } {
  const line = (p: Progress): string =>
    `${label}: ${(p.elapsedMs / 1000).toFixed(1)}s of ${totalText}, ${formatNumber(p.completed)} answers ` +
    `(${formatNumber(p.completed / Math.max(p.elapsedMs / 1000, 0.001))} req/s), ${p.errors} errors, ${p.timeouts} timeouts, ${p.unexpected} unexpected`;
  if (io.isTty) {
    return {
      onProgress: (p) => io.printErr(`\r\x1b[2K${line(p)}`),
      intervalMs: TTY_PROGRESS_MS,
      done: () => io.printErr('\r\x1b[2K'),
    };
  }
  return { onProgress: (p) => io.printErr(`${line(p)}\n`), intervalMs: PLAIN_PROGRESS_MS, done: () => {} };
}

/** Creates pets by POST until the store holds `wanted` (a deployment asked to be seeded with --pets). */
async function seedOverHttp(target: Target, wanted: number, options: BenchOptions, io: BenchIo): Promise<void> {
  const first = await fetchJson(target, `${target.basePath}/pets?limit=1`);
  const missing = wanted - Number(first.headers['x-total-count'] ?? 0);
  if (missing <= 0) return;
  io.printErr(`creating ${formatNumber(missing)} pets on ${target.origin}${target.basePath}\n`);
  const seeded = await runLoad({
    origin: target.origin,
    insecure: options.insecure,
    connections: SEED_CONNECTIONS,
    pipelining: 1,
    amount: missing,
    durationMs: undefined,
    ratePerSecond: undefined,
    timeoutMs: options.timeoutMs,
    expectedStatuses: new Set([201]),
    nextRequest: () => ({
      method: 'POST',
      path: `${target.basePath}/pets`,
      headers: { authorization: `Bearer ${target.key ?? ''}`, 'content-type': 'application/json' },
      body: '{"name":"Seed pet","categoryId":1}',
    }),
  });
  if (seeded.unexpected + seeded.errors + seeded.timeouts > 0)
    throw new Error(`seeding failed: ${seeded.problems[0] ?? 'unknown error'}`);
}

/** Runs the load scenario of `options` against the service at `apiUrl`; the run's report. */
async function runScenarioAt(
  options: BenchOptions,
  apiUrl: string,
  key: string | undefined,
  io: BenchIo,
  quiet: boolean,
): Promise<BenchReport> {
  const target = targetOf(apiUrl, key);
  if (options.url !== undefined && options.pets !== undefined) await seedOverHttp(target, options.pets, options, io);
  const meta: RunMeta = {
    scenario: options.scenario,
    description: '',
    url: apiUrl,
    connections: options.connections,
    pipelining: options.pipelining,
    workers: options.workers,
    ...(options.http2 && { http2: true }),
    durationMs: options.durationMs,
    amount: options.amount,
    ratePerSecond: options.ratePerSecond,
    startedAt: new Date().toISOString(),
  };
  if (options.scenario === 'over-limit') {
    meta.description =
      'a free key driven past its plan; every answer 200 or 429 with rate-limit headers; recovery with backoff';
    const over = await runOverLimit(target, options.connections, options.timeoutMs, {
      http2: options.http2,
      insecure: options.insecure,
    });
    return buildReport(
      meta,
      over.drive,
      { limit: over.limit, remainingBefore: over.remainingBefore, recovery: over.recovery },
      over.failures,
    );
  }
  const scenario = SCENARIOS[options.scenario as keyof typeof SCENARIOS];
  meta.description = scenario.description;
  if (!quiet) io.printErr(`preparing ${scenario.name}\n`);
  const prepared = await scenario.prepare(target);
  const totalText =
    options.amount !== undefined ? `${formatNumber(options.amount)} requests` : `${(options.durationMs ?? 0) / 1000}s`;
  const progress = quiet ? undefined : progressPrinter(io, scenario.name, totalText);
  meta.startedAt = new Date().toISOString();
  const result = await runThreadedLoad(
    {
      origin: target.origin,
      http2: options.http2,
      insecure: options.insecure,
      connections: options.connections,
      pipelining: options.pipelining,
      workers: options.workers,
      durationMs: options.durationMs,
      amount: options.amount,
      ratePerSecond: options.ratePerSecond,
      warmupMs: options.warmupMs,
      timeoutMs: options.timeoutMs,
      requests: prepared.requests,
      expectedStatuses: new Set(scenario.expectedStatuses),
      stopOnStatuses: new Set([429]),
      inspectScenario: scenario.inspect === undefined ? undefined : scenario.name,
      onProgress: progress?.onProgress,
      progressIntervalMs: progress?.intervalMs,
    },
    (name) => SCENARIOS[name as keyof typeof SCENARIOS]?.inspect,
  );
  progress?.done();
  if (result.stoppedBy === 429) {
    throw new Error(
      "stopped early: the service answered 429 (rate limited), so the key's plan, not the service, sets the pace. " +
        'A load test needs a key with limits above the load: animal-store keys create --plan enterprise ' +
        '--per-minute 100000000 --per-day 1000000000 --name load-test',
    );
  }
  return buildReport(meta, result, prepared.notes);
}

/** The startup scenario's report in the same JSON envelope as the others. */
function formatStartup(result: StartupResult): string {
  const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;
  return [
    `startup: replay of a generated log of ${formatNumber(result.pets)} pets (${formatBytes(result.logBytes)}, generated in ${formatNumber(result.generateMs)} ms)`,
    `  createAnimalStore: ${formatNumber(result.startMs)} ms (empty data directory: ${formatNumber(result.emptyStartMs)} ms)`,
    `  resident memory: ${mb(result.rssBytes)} (empty service: ${mb(result.emptyRssBytes)}; peak during start-up: ${mb(result.maxRssBytes)})`,
    `  per pet: ${result.rssBytesPerPet.toFixed(0)} bytes of RSS, ${result.heapUsedBytesPerPet.toFixed(0)} bytes of V8 heap`,
    '',
  ].join('\n');
}

/** Runs the bench command; resolves with the process exit code (0 ok, 1 failed run). Throws TypeError on a bad option. */
export async function runBenchCommand(argv: readonly string[], env: NodeJS.ProcessEnv, io: BenchIo): Promise<number> {
  const options = parseBenchArgs(argv, env);
  if (options.help) {
    io.print(BENCH_HELP);
    return 0;
  }
  if (options.scenario === 'startup') {
    const result = await runStartup(
      options.pets ?? DEFAULT_STARTUP_PETS,
      options.quiet ? undefined : (line) => io.printErr(`${line}\n`),
    );
    const json = { scenario: 'startup', ...result };
    io.print(options.quiet ? `${JSON.stringify(json)}\n` : formatStartup(result));
    if (options.jsonFile !== undefined) await writeFile(options.jsonFile, `${JSON.stringify(json, null, 2)}\n`);
    return 0;
  }
  // The setup requests (undici's global dispatcher) speak as the load does, and trust as it is told.
  if (options.http2 || options.insecure)
    setGlobalDispatcher(
      new Agent({ allowH2: options.http2, ...(options.insecure && { connect: { rejectUnauthorized: false } }) }),
    );
  let service: LocalService | undefined;
  let report: BenchReport;
  try {
    let apiUrl = options.url;
    let key = options.key;
    if (apiUrl === undefined) {
      const pets = options.pets ?? (options.scenario === 'over-limit' ? 0 : SCENARIOS[options.scenario].localPets);
      if (!options.quiet)
        io.printErr(`starting a local service (${formatNumber(pets)} pets, durability ${options.durability})\n`);
      service = await startLocalService({ durability: options.durability, pets, profileDir: options.profileDir });
      apiUrl = service.apiUrl;
      key ??= options.scenario === 'over-limit' ? service.freeKey : service.key;
    }
    report = await runScenarioAt(options, apiUrl, key, io, options.quiet);
  } finally {
    await service?.close();
  }
  io.print(options.quiet ? `${JSON.stringify(report)}\n` : formatReport(report));
  if (options.jsonFile !== undefined) await writeFile(options.jsonFile, `${JSON.stringify(report, null, 2)}\n`);
  return report.ok ? 0 : 1;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const io: BenchIo = {
    print: (text) => process.stdout.write(text),
    printErr: (text) => process.stderr.write(text),
    isTty: process.stderr.isTTY === true,
  };
  runBenchCommand(process.argv.slice(2), process.env, io).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = error instanceof TypeError ? 2 : 1;
    },
  );
}
