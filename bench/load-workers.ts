// A load spread over worker threads, as autocannon's --workers does: each thread runs the load loop
// (load.ts) on its share of the connections, amount and rate, and the results are merged into one.
// One thread is enough to saturate a node:http server from one core (load.ts says why); more help
// where the generator has more cores than one, or the target is faster than one core can drive.
// The split and the merge are pure; the threads are the thin edge.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { Histogram, type HistogramSnapshot } from './histogram.js';
import { emptyResult, type LoadOptions, type LoadResult, type Progress, type RequestSpec, runLoad } from './load.js';

/** What one thread runs: its share of the load, and which requests of the cycle are its own. */
export interface LoadShare {
  connections: number;
  amount: number | undefined;
  ratePerSecond: number | undefined;
  /** This thread sends requests offset, offset + stride, offset + 2 × stride, … of the cycle. */
  offset: number;
  stride: number;
}

/**
 * Splits a load over `workers` threads: connections as evenly as can be (each thread at least one),
 * the amount and the rate in proportion to each thread's connections, and the request cycle
 * interleaved, so together the threads send what one would.
 */
export function splitLoad(
  load: { connections: number; amount: number | undefined; ratePerSecond: number | undefined },
  workers: number,
): LoadShare[] {
  if (!Number.isInteger(workers) || workers < 1) throw new RangeError('workers must be a whole number from 1');
  if (workers > load.connections) throw new RangeError(`${workers} workers need at least as many connections`);
  const shares: LoadShare[] = [];
  let amountLeft = load.amount;
  let rateLeft = load.ratePerSecond;
  for (let index = 0; index < workers; index++) {
    const connections = Math.floor(load.connections / workers) + (index < load.connections % workers ? 1 : 0);
    // The last thread takes what rounding left over, so the shares add up exactly.
    const last = index === workers - 1;
    const part = (total: number | undefined, left: number | undefined): number | undefined =>
      total === undefined || left === undefined
        ? undefined
        : last
          ? left
          : Math.round((total * connections) / load.connections);
    const amount = part(load.amount, amountLeft);
    const ratePerSecond = part(load.ratePerSecond, rateLeft);
    if (amountLeft !== undefined && amount !== undefined) amountLeft -= amount;
    if (rateLeft !== undefined && ratePerSecond !== undefined) rateLeft -= ratePerSecond;
    shares.push({ connections, amount, ratePerSecond, offset: index, stride: workers });
  }
  return shares;
}

/** A LoadResult as plain data, to cross from a thread. */
export type SentResult = Omit<LoadResult, 'latency'> & { latency: HistogramSnapshot };

export function toSent(result: LoadResult): SentResult {
  return { ...result, latency: result.latency.snapshot() };
}

/** One result of several threads' results: counts added, latencies merged, the longest elapsed time. */
export function mergeResults(results: readonly SentResult[], maxProblems = 10): LoadResult {
  const merged = emptyResult();
  const addInto = (into: number[], from: readonly number[]): void => {
    from.forEach((value, second) => {
      into[second] = (into[second] ?? 0) + (value ?? 0);
    });
  };
  for (const result of results) {
    merged.elapsedMs = Math.max(merged.elapsedMs, result.elapsedMs);
    merged.completed += result.completed;
    merged.bodyBytes += result.bodyBytes;
    merged.errors += result.errors;
    merged.timeouts += result.timeouts;
    merged.unexpected += result.unexpected;
    for (const [status, count] of Object.entries(result.statusCounts))
      merged.statusCounts[status] = (merged.statusCounts[status] ?? 0) + count;
    for (const problem of result.problems) if (merged.problems.length < maxProblems) merged.problems.push(problem);
    merged.latency.merge(Histogram.fromSnapshot(result.latency));
    addInto(merged.perSecond.completed, result.perSecond.completed);
    addInto(merged.perSecond.bodyBytes, result.perSecond.bodyBytes);
    if (merged.stoppedBy === undefined && result.stoppedBy !== undefined) merged.stoppedBy = result.stoppedBy;
    if (result.warmupCompleted !== undefined)
      merged.warmupCompleted = (merged.warmupCompleted ?? 0) + result.warmupCompleted;
  }
  // Holes (a second in which one thread answered nothing) read as 0, not as missing.
  for (const list of [merged.perSecond.completed, merged.perSecond.bodyBytes])
    for (let second = 0; second < list.length; second++) list[second] ??= 0;
  return merged;
}

/** A load for one or more threads: the requests to cycle through instead of a function, so it can cross. */
export type ThreadedLoadOptions = Omit<LoadOptions, 'nextRequest' | 'inspect' | 'stopSignal'> & {
  /** Sent in turn: request i of the run is requests[i % requests.length]. */
  requests: readonly RequestSpec[];
  /** The scenario whose `inspect` checks each answer (looked up by name in each thread). */
  inspectScenario?: string | undefined;
  workers: number;
};

/** What a thread is given (in workerData). */
export type ThreadTask = Omit<
  ThreadedLoadOptions,
  'onProgress' | 'workers' | 'connections' | 'amount' | 'ratePerSecond'
> &
  LoadShare & { progress: boolean };

/** What a thread posts back. */
export type ThreadMessage =
  | { type: 'ready' }
  | { type: 'progress'; progress: Progress }
  | { type: 'stopped' }
  | { type: 'done'; result: SentResult }
  | { type: 'failed'; message: string };

/** The request at `index` of this thread's part of the cycle. */
export function cycleOf(
  requests: readonly RequestSpec[],
  offset: number,
  stride: number,
): (index: number) => RequestSpec {
  if (requests.length === 0) throw new RangeError('a load needs at least one request');
  return (index) => requests[(offset + index * stride) % requests.length] as RequestSpec;
}

const WORKER_FILE = new URL(`./load-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

/**
 * A thread running `file`. From TypeScript sources (the bench runs under tsx), the thread first
 * registers tsx's loader for itself: hooks registered in this thread do not reach a new one.
 */
function startThread(file: URL, workerData: ThreadTask): Worker {
  if (!file.pathname.endsWith('.ts')) return new Worker(file, { workerData });
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(file.href)}); })`;
  return new Worker(bootstrap, { eval: true, workerData });
}

/**
 * Runs a load on `workers` threads (on this one when it is 1) and merges what they measured. They
 * start together once every thread has loaded; a thread that meets a stop status stops the others.
 */
export async function runThreadedLoad(
  options: ThreadedLoadOptions,
  inspectOf: (scenario: string) => LoadOptions['inspect'],
): Promise<LoadResult> {
  const { requests, inspectScenario, workers, onProgress, ...load } = options;
  if (workers === 1)
    return runLoad({
      ...load,
      onProgress,
      nextRequest: cycleOf(requests, 0, 1),
      inspect: inspectScenario === undefined ? undefined : inspectOf(inspectScenario),
    });
  const shares = splitLoad(load, workers);
  const latest: Progress[] = shares.map(() => ({ elapsedMs: 0, completed: 0, errors: 0, timeouts: 0, unexpected: 0 }));
  const threads = shares.map((share) =>
    startThread(WORKER_FILE, { ...load, ...share, requests, inspectScenario, progress: onProgress !== undefined }),
  );
  let ready = 0;
  const results = threads.map(
    (thread, index) =>
      new Promise<SentResult>((resolve, reject) => {
        thread.on('message', (message: ThreadMessage) => {
          switch (message.type) {
            case 'ready':
              ready += 1;
              if (ready === threads.length) for (const each of threads) each.postMessage('go');
              break;
            case 'progress': {
              latest[index] = message.progress;
              const sum = (pick: (p: Progress) => number): number => latest.reduce((total, p) => total + pick(p), 0);
              onProgress?.({
                elapsedMs: Math.max(...latest.map((p) => p.elapsedMs)),
                completed: sum((p) => p.completed),
                errors: sum((p) => p.errors),
                timeouts: sum((p) => p.timeouts),
                unexpected: sum((p) => p.unexpected),
              });
              break;
            }
            case 'stopped':
              for (const each of threads) if (each !== thread) each.postMessage('stop');
              break;
            case 'done':
              resolve(message.result);
              break;
            case 'failed':
              reject(new Error(`load thread ${index + 1}: ${message.message}`));
              break;
          }
        });
        thread.once('error', reject);
        thread.once('exit', (code) => reject(new Error(`load thread ${index + 1} exited with code ${code}`)));
      }),
  );
  try {
    return mergeResults(await Promise.all(results));
  } finally {
    await Promise.all(threads.map((thread) => thread.terminate()));
  }
}
