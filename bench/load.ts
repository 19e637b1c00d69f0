// The load runner: an undici Pool (keep-alive, optional HTTP/1.1 pipelining) driven by
// connections × pipelining senders, for a duration or an amount, optionally at a fixed rate
// (pacing.ts). It counts status codes, errors and timeouts, records latencies in a Histogram, and
// calls back with progress. It uses undici's low-level `dispatch` with one small handler object per
// request, not `request()` with its body stream: on a 2-core machine the client shares the CPU with
// the server, and the stream machinery cost the client about a third more CPU per request.
import { performance } from 'node:perf_hooks';
import { type Dispatcher, Pool } from 'undici';
import { Histogram } from './histogram.js';
import { RateSchedule } from './pacing.js';

/** One request to send. Specs are built once by a scenario and reused, so sending allocates little. */
export interface RequestSpec {
  method: 'GET' | 'POST' | 'HEAD';
  /** Path and query, base path included. */
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** Response headers as undici gives them: lower-case names. */
export type ResponseHeaders = Record<string, string | string[] | undefined>;

export interface LoadOptions {
  /** Scheme, host and port only (the base path is in each RequestSpec's path). */
  origin: string;
  connections: number;
  pipelining: number;
  durationMs: number | undefined;
  amount: number | undefined;
  ratePerSecond: number | undefined;
  timeoutMs: number;
  /** The request numbered `index` (from 0). */
  nextRequest(index: number): RequestSpec;
  /** Statuses the scenario expects; any other counts as unexpected. */
  expectedStatuses: ReadonlySet<number>;
  /**
   * Runs the same load this long first, on the same connections, and discards what it measured: the
   * measured run then starts on open, warm connections, not with their set-up (autocannon's --warmup).
   */
  warmupMs?: number;
  /** Checks one answer's headers; returns what is wrong with it, if anything. */
  inspect?(status: number, headers: ResponseHeaders): string | undefined;
  /**
   * Stops the run at the first answer with one of these statuses (when the scenario does not expect
   * it): a 429 means the key's plan, not the service, sets the pace, and measuring refusals would
   * publish the wrong number. The result then carries `stoppedBy`.
   */
  stopOnStatuses?: ReadonlySet<number>;
  /** Called every `progressIntervalMs` while running. */
  onProgress?(progress: Progress): void;
  progressIntervalMs?: number;
}

/** A snapshot while running. */
export interface Progress {
  elapsedMs: number;
  completed: number;
  errors: number;
  timeouts: number;
  unexpected: number;
}

/** What a run measured. */
export interface LoadResult {
  /** From the first send to the last answer, in ms. */
  elapsedMs: number;
  /** Requests that got an answer (any status). */
  completed: number;
  /** Response body bytes read. */
  bodyBytes: number;
  statusCounts: Record<string, number>;
  errors: number;
  timeouts: number;
  /** Answers whose status the scenario did not expect, or that `inspect` found fault with. */
  unexpected: number;
  /** Up to MAX_PROBLEMS_KEPT descriptions of errors and unexpected answers. */
  problems: string[];
  latency: Histogram;
  /** Answers and body bytes in each second of the run (the last second may be partial). */
  perSecond: { completed: number[]; bodyBytes: number[] };
  /** Set when the run stopped early at an answer of `stopOnStatuses`: that answer's status. */
  stoppedBy?: number;
}

const MAX_PROBLEMS_KEPT = 10;
/** After a transport error a sender pauses this long, so a dead server is not hammered in a tight loop. */
const ERROR_PAUSE_MS = 10;
/**
 * Node's timers fire at whole milliseconds and often up to 1 ms late, so a paced send is armed this
 * much early; otherwise at 5,000 requests/s every sample would carry up to a millisecond of client lag.
 */
const TIMER_SLACK_MS = 1;
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

/** One request in flight: receives undici's callbacks and reports to the run. */
class Exchange implements Dispatcher.DispatchHandler {
  status = 0;
  bodyBytes = 0;
  headers: ResponseHeaders | undefined;
  readonly #run: LoadRun;
  readonly #startMs: number;
  readonly #keepHeaders: boolean;

  constructor(run: LoadRun, startMs: number, keepHeaders: boolean) {
    this.#run = run;
    this.#startMs = startMs;
    this.#keepHeaders = keepHeaders;
  }

  onRequestStart(): void {}

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: ResponseHeaders): void {
    this.status = statusCode;
    if (this.#keepHeaders) this.headers = headers;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.bodyBytes += chunk.length;
  }

  onResponseEnd(): void {
    this.#run.answered(this, this.#startMs);
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#run.failed(error);
  }
}

/** The state of one run; `start` resolves with the result once every sender has stopped. */
class LoadRun {
  readonly result: LoadResult;
  readonly #options: LoadOptions;
  readonly #pool: Pool;
  #schedule: RateSchedule | undefined;
  /** Index of the next request to send. */
  #issued = 0;
  /** The run's end in performance.now() ms, when it is timed and not paced. */
  #deadlineMs = Number.POSITIVE_INFINITY;
  /** Paced runs end after this many requests (the ones due within the duration, or the amount). */
  #lastIndex = Number.POSITIVE_INFINITY;
  #inFlight = 0;
  #startMs = 0;
  #finish: () => void = () => {};

  constructor(options: LoadOptions, pool: Pool) {
    this.#options = options;
    this.#pool = pool;
    this.#schedule = options.ratePerSecond === undefined ? undefined : new RateSchedule(options.ratePerSecond, 0);
    this.result = {
      elapsedMs: 0,
      completed: 0,
      bodyBytes: 0,
      statusCounts: {},
      errors: 0,
      timeouts: 0,
      unexpected: 0,
      problems: [],
      latency: new Histogram(),
      perSecond: { completed: [], bodyBytes: [] },
    };
  }

  async start(): Promise<LoadResult> {
    const options = this.#options;
    const done = new Promise<void>((resolve) => {
      this.#finish = resolve;
    });
    this.#startMs = performance.now();
    if (this.#schedule !== undefined) {
      // The schedule's clock starts now: request i is due at start + i / rate.
      this.#schedule = new RateSchedule(this.#schedule.ratePerSecond, this.#startMs);
      this.#lastIndex = options.amount ?? this.#schedule.countWithin(options.durationMs ?? 0);
    } else if (options.amount !== undefined) {
      this.#lastIndex = options.amount;
    } else {
      this.#deadlineMs = this.#startMs + (options.durationMs ?? 0);
    }
    const progress =
      options.onProgress === undefined
        ? undefined
        : setInterval(() => {
            const { completed, errors, timeouts, unexpected } = this.result;
            options.onProgress?.({
              elapsedMs: performance.now() - this.#startMs,
              completed,
              errors,
              timeouts,
              unexpected,
            });
          }, options.progressIntervalMs ?? 1000);
    const senders = options.connections * options.pipelining;
    for (let sender = 0; sender < senders; sender++) this.#sendNext();
    if (this.#inFlight === 0) this.#finish();
    await done;
    this.result.elapsedMs = performance.now() - this.#startMs;
    clearInterval(progress);
    return this.result;
  }

  /** Sends the next request if the run is not over; otherwise lets this sender stop. */
  #sendNext(): void {
    const index = this.#issued;
    const nowMs = performance.now();
    if (index >= this.#lastIndex || nowMs >= this.#deadlineMs) {
      if (this.#inFlight === 0) this.#finish();
      return;
    }
    this.#issued += 1;
    this.#inFlight += 1;
    if (this.#schedule === undefined) {
      this.#dispatch(index, nowMs);
      return;
    }
    // Latency counts from the intended time whenever the send is late (no coordinated omission), and
    // from the send itself when a timer let it go up to TIMER_SLACK_MS early.
    const schedule = this.#schedule;
    const waitMs = schedule.waitMs(index, nowMs);
    if (waitMs <= TIMER_SLACK_MS) this.#dispatch(index, schedule.latencyStartMs(index, nowMs));
    else
      setTimeout(
        () => this.#dispatch(index, schedule.latencyStartMs(index, performance.now())),
        waitMs - TIMER_SLACK_MS,
      );
  }

  #dispatch(index: number, startMs: number): void {
    const spec = this.#options.nextRequest(index);
    const exchange = new Exchange(this, startMs, this.#options.inspect !== undefined);
    // undici treats every request but HEAD as `blocking` by default: it sends nothing more on the
    // connection until that answer's headers are in, so --pipelining would change nothing. Undici
    // still sends a POST (not idempotent) only on a connection with nothing in flight.
    this.#pool.dispatch(
      { path: spec.path, method: spec.method, headers: spec.headers, body: spec.body, blocking: false },
      exchange,
    );
  }

  answered(exchange: Exchange, startMs: number): void {
    const result = this.result;
    const nowMs = performance.now();
    result.latency.recordMs(nowMs - startMs);
    result.completed += 1;
    result.bodyBytes += exchange.bodyBytes;
    const second = Math.floor((nowMs - this.#startMs) / 1000);
    const { completed, bodyBytes } = result.perSecond;
    completed[second] = (completed[second] ?? 0) + 1;
    bodyBytes[second] = (bodyBytes[second] ?? 0) + exchange.bodyBytes;
    const status = exchange.status;
    result.statusCounts[status] = (result.statusCounts[status] ?? 0) + 1;
    if (
      result.stoppedBy === undefined &&
      this.#options.stopOnStatuses?.has(status) === true &&
      !this.#options.expectedStatuses.has(status)
    ) {
      // No request is sent after this one; those in flight finish.
      result.stoppedBy = status;
      this.#lastIndex = this.#issued;
    }
    let problem: string | undefined;
    if (!this.#options.expectedStatuses.has(status)) problem = `unexpected status ${status}`;
    else if (this.#options.inspect !== undefined) problem = this.#options.inspect(status, exchange.headers ?? {});
    if (problem !== undefined) {
      result.unexpected += 1;
      if (result.problems.length < MAX_PROBLEMS_KEPT) result.problems.push(problem);
    }
    this.#inFlight -= 1;
    this.#sendNext();
  }

  failed(error: Error): void {
    const result = this.result;
    const code = (error as Error & { code?: string }).code ?? error.name;
    if (TIMEOUT_CODES.has(code)) result.timeouts += 1;
    else result.errors += 1;
    if (result.problems.length < MAX_PROBLEMS_KEPT) result.problems.push(`${code}: ${error.message}`);
    setTimeout(() => {
      this.#inFlight -= 1;
      this.#sendNext();
    }, ERROR_PAUSE_MS);
  }
}

/** Runs one load test (after its warm-up, if any) and resolves with what it measured. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  if (options.durationMs === undefined && options.amount === undefined)
    throw new TypeError('runLoad needs durationMs or amount');
  const pool = new Pool(options.origin, {
    connections: options.connections,
    pipelining: options.pipelining,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    connectTimeout: options.timeoutMs,
    keepAliveTimeout: 30_000,
  });
  try {
    if (options.warmupMs !== undefined && options.warmupMs > 0) {
      const { onProgress: _progress, ...rest } = options;
      await new LoadRun({ ...rest, durationMs: options.warmupMs, amount: undefined }, pool).start();
    }
    return await new LoadRun(options, pool).start();
  } finally {
    await pool.close();
  }
}
