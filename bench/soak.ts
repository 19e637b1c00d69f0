// Soak and overload (docs/deployment.md), run by hand: `npm run bench:soak -- [--minutes 10] [--url URL --key KEY]`.
//   1. peak: the list route as fast as 10 connections go, for a few seconds;
//   2. soak: half of that peak, paced, minute by minute: errors, p99 and the service's resident memory;
//   3. overload: twice the peak from 2,048 concurrent requests for a minute: the service must stay up
//      and answer fast, with 429 or 503 where it refuses;
//   4. recovery: half the peak again, right after: every answer 200.
// A local service runs in a child process, so its RSS is read from /proc. Exit code 1 if a phase fails.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type LoadResult, type RequestSpec, runLoad } from './load.js';
import { type LocalService, startLocalService } from './local-service.js';

const PEAK_MS = 5_000;
const WINDOW_MS = 60_000;
const OVERLOAD_MS = 60_000;
const RECOVERY_MS = 10_000;
const WINDOW_WARMUP_MS = 1_000;
/** 128 connections × 16 pipelined: more requests in flight than the service's default bound of 1,024. */
const OVERLOAD_CONNECTIONS = 128;
const OVERLOAD_PIPELINING = 16;
const TIMEOUT_MS = 10_000;

function rssMb(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? undefined : Math.round(Number(match[1]) / 102.4) / 10;
  } catch {
    return undefined;
  }
}

function line(label: string, result: LoadResult, rss?: number): string {
  const latency = result.latency.summary();
  const perSecond = Math.round(result.completed / (result.elapsedMs / 1000));
  const statuses = Object.entries(result.statusCounts)
    .map(([status, count]) => `${status}:${count}`)
    .join(' ');
  return `${label.padEnd(14)} ${String(perSecond).padStart(7)} req/s  p50 ${latency.p50Ms.toFixed(2)} ms  p99 ${latency.p99Ms.toFixed(2)} ms  max ${latency.maxMs.toFixed(1)} ms  [${statuses}] errors ${result.errors} timeouts ${result.timeouts}${rss === undefined ? '' : `  rss ${rss} MB`}`;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { minutes: { type: 'string' }, url: { type: 'string' }, key: { type: 'string' } },
  });
  const minutes = Number(values.minutes ?? 10);
  if (!Number.isInteger(minutes) || minutes < 1) throw new TypeError('--minutes must be a whole number of at least 1');
  let service: LocalService | undefined;
  let apiUrl = values.url;
  let key = values.key;
  if (apiUrl === undefined) {
    service = await startLocalService({ durability: 'always', pets: 1_000 });
    apiUrl = service.apiUrl;
    key = service.key;
  }
  const url = new URL(apiUrl);
  const spec: RequestSpec = {
    method: 'GET',
    path: `${url.pathname.replace(/\/$/, '')}/pets?limit=20`,
    headers: { authorization: `Bearer ${key ?? ''}` },
  };
  const base = { origin: url.origin, timeoutMs: TIMEOUT_MS, nextRequest: () => spec, amount: undefined };
  const rss = (): number | undefined => (service === undefined ? undefined : rssMb(service.pid));
  let failed = false;
  try {
    const peak = await runLoad({
      ...base,
      connections: 10,
      pipelining: 1,
      durationMs: PEAK_MS,
      ratePerSecond: undefined,
      expectedStatuses: new Set([200]),
    });
    const peakRate = Math.round(peak.completed / (peak.elapsedMs / 1000));
    const soakRate = Math.floor(peakRate / 2);
    process.stdout.write(
      `${line('peak', peak, rss())}\nsoak at ${soakRate} req/s for ${minutes} min (rss at start ${rss() ?? '?'} MB)\n`,
    );
    for (let minute = 1; minute <= minutes; minute++) {
      // Each window opens its own connections; a second of unmeasured load first keeps their set-up
      // (and the generator's own warm-up) out of the steady state the soak measures.
      const window = await runLoad({
        ...base,
        connections: 32,
        pipelining: 1,
        durationMs: WINDOW_MS,
        warmupMs: WINDOW_WARMUP_MS,
        ratePerSecond: soakRate,
        expectedStatuses: new Set([200]),
      });
      process.stdout.write(`${line(`soak min ${minute}`, window, rss())}\n`);
      if (window.errors + window.timeouts + window.unexpected > 0) failed = true;
    }
    const overload = await runLoad({
      ...base,
      connections: OVERLOAD_CONNECTIONS,
      pipelining: OVERLOAD_PIPELINING,
      durationMs: OVERLOAD_MS,
      ratePerSecond: peakRate * 2,
      expectedStatuses: new Set([200, 429, 503]),
    });
    process.stdout.write(`${line('overload 2x', overload, rss())}\n`);
    if (overload.errors + overload.timeouts + overload.unexpected > 0) failed = true;
    const recovery = await runLoad({
      ...base,
      connections: 32,
      pipelining: 1,
      durationMs: RECOVERY_MS,
      ratePerSecond: soakRate,
      expectedStatuses: new Set([200]),
    });
    process.stdout.write(`${line('recovery', recovery, rss())}\n`);
    if (recovery.errors + recovery.timeouts + recovery.unexpected > 0) failed = true;
  } finally {
    await service?.close();
  }
  process.stdout.write(failed ? 'FAILED: some answers were errors, timeouts or unexpected statuses\n' : 'ok\n');
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`soak: ${(error as Error).message}\n`);
    process.exit(2);
  },
);
