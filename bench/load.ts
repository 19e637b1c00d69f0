// The load runner: `connections` keep-alive HTTP/1.1 connections, each with up to `pipelining` requests
// in flight, for a duration or an amount, optionally at a fixed rate (pacing.ts). It counts status
// codes, errors and timeouts, records latencies in a Histogram, and calls back with progress.
// It speaks HTTP/1.1 itself (wire.ts): every request is serialised once and written as the same bytes,
// and an answer is read for its status and framing only. A general client costs the generator more
// CPU per answer than a bare node:http server spends on it, so on one core it could not saturate the
// server it measures; this loop drives as many requests per second as autocannon does.
// A larger load spreads over worker threads (load-workers.ts), each running this loop.
// With `http2`, each connection is an HTTP/2 session (node:http2) with up to `pipelining` streams open
// at once: a general client, so it measures less of the service per generator core than the HTTP/1.1
// loop does (h2load measures HTTP/2 for docs/performance.md).
import { type ClientHttp2Session, connect as connectHttp2, type OutgoingHttpHeaders } from 'node:http2';
import { connect as connectTcp, isIP, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { connect as connectTls } from 'node:tls';
import { Histogram } from './histogram.js';
import { RateSchedule } from './pacing.js';
import {
  encodeRequest,
  ProtocolError,
  type RequestSpec,
  type ResponseHeaders,
  ResponseParser,
  type ResponseSink,
} from './wire.js';

export type { RequestSpec, ResponseHeaders } from './wire.js';

export interface LoadOptions {
  /** Scheme, host and port only (the base path is in each RequestSpec's path). */
  origin: string;
  /** Send over HTTP/2 (an https origin; ALPN h2): `pipelining` streams at once per connection. */
  http2?: boolean;
  /** Accept a certificate no authority vouches for (a self-signed one): https origins only. */
  insecure?: boolean;
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
  /** Called once, when an answer of `stopOnStatuses` stops the run. */
  onStopped?(status: number): void;
  /** Aborting it ends the run as a stop status does: nothing more is sent, what is in flight finishes. */
  stopSignal?: AbortSignal;
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
  /**
   * Answers of the warm-up before the run (`warmupMs`), counted apart from `completed`: what a CPU
   * time read around the whole call divides by.
   */
  warmupCompleted?: number;
}

const MAX_PROBLEMS_KEPT = 10;
const EMPTY = Buffer.alloc(0);

/** A result with nothing counted yet. */
export function emptyResult(): LoadResult {
  return {
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
/** After a connection fails, it is opened again this much later, so a dead server is not hammered in a tight loop. */
const ERROR_PAUSE_MS = 10;
/**
 * Node's timers fire at whole milliseconds and often up to 1 ms late, so a paced send is armed this
 * much early; otherwise at 5,000 requests/s every sample would carry up to a millisecond of client lag.
 */
const TIMER_SLACK_MS = 1;
/** How often connections are checked for an answer (or a connect) that has taken longer than the timeout. */
const MAX_TIMEOUT_CHECK_MS = 250;

/** One request written and not yet answered. */
interface Exchange {
  /** Where its latency counts from: the send, or the intended send of a paced request that went late. */
  startMs: number;
  /** When its bytes were written, for the timeout. */
  sentMs: number;
  head: boolean;
  /** Its bytes, to write again when the server closed the connection before reading it. */
  bytes: Buffer;
  /** What it is, for HTTP/2 (the same object for every request it describes). */
  spec: RequestSpec;
}

/** What a run needs of a connection, HTTP/1.1 or HTTP/2. */
interface LoadConnection {
  owner: LoadRun;
  send(exchange: Exchange): void;
  checkTimeout(nowMs: number, timeoutMs: number): void;
  close(): void;
}

/**
 * One keep-alive connection and the requests in flight on it, answered in the order they were sent.
 * It reports answers and failures to the run that currently owns it (the warm-up's, then the
 * measured run's).
 */
class Connection implements ResponseSink, LoadConnection {
  owner: LoadRun;
  readonly #origin: URL;
  readonly #keepHeaders: boolean;
  readonly #insecure: boolean;
  #socket: Socket | undefined;
  #connected = false;
  #connectStartMs = 0;
  /** In flight, oldest first. */
  readonly inFlight: Exchange[] = [];
  /** Requests waiting for the connection to open (or to open again). */
  readonly #waiting: Exchange[] = [];
  #closed = false;

  constructor(owner: LoadRun, origin: URL, keepHeaders: boolean, insecure: boolean) {
    this.owner = owner;
    this.#origin = origin;
    this.#keepHeaders = keepHeaders;
    this.#insecure = insecure;
  }

  send(exchange: Exchange): void {
    if (this.#connected && this.#socket !== undefined) this.#write(exchange);
    else {
      this.#waiting.push(exchange);
      if (this.#socket === undefined) this.#open();
    }
  }

  #write(exchange: Exchange): void {
    exchange.sentMs = performance.now();
    this.inFlight.push(exchange);
    this.#socket?.write(exchange.bytes);
  }

  #open(): void {
    const origin = this.#origin;
    const port = Number(origin.port || (origin.protocol === 'https:' ? 443 : 80));
    const host = origin.hostname.replace(/^\[|\]$/g, '');
    this.#connectStartMs = performance.now();
    const socket =
      origin.protocol === 'https:'
        ? // SNI names a host, never an address (RFC 6066 section 3).
          connectTls({
            host,
            port,
            servername: isIP(host) === 0 ? host : '',
            ALPNProtocols: ['http/1.1'],
            // Left out unless asked: NODE_TLS_REJECT_UNAUTHORIZED keeps its say.
            ...(this.#insecure && { rejectUnauthorized: false }),
          })
        : connectTcp({ host, port });
    const parser = new ResponseParser(this, this.#keepHeaders);
    this.#socket = socket;
    socket.setNoDelay(true);
    socket.once(origin.protocol === 'https:' ? 'secureConnect' : 'connect', () => {
      this.#connected = true;
      const waiting = this.#waiting.splice(0);
      for (const exchange of waiting) this.#write(exchange);
    });
    socket.on('data', (chunk: Buffer) => {
      try {
        parser.feed(chunk);
      } catch (error) {
        this.#fail(error as Error);
      }
    });
    socket.on('end', () => {
      if (socket === this.#socket && !parser.end())
        this.#fail(new Error('the server closed the connection mid-answer'));
    });
    socket.on('error', (error) => this.#fail(error));
    socket.on('close', () => {
      if (socket !== this.#socket) return;
      // Closed between answers (a keep-alive timeout, Connection: close): what was sent and not read
      // is sent again on a new connection, with its latency still counting from its first send.
      this.#drop();
      const unanswered = this.inFlight.splice(0);
      this.#waiting.unshift(...unanswered);
      if (this.#waiting.length > 0 && !this.#closed) this.#open();
    });
  }

  /** Part of ResponseSink: the parser asks whether the answer it reads is for a HEAD. */
  answersHead(): boolean {
    return this.inFlight[0]?.head === true;
  }

  /** Part of ResponseSink: one answer read. */
  response(status: number, headers: ResponseHeaders | undefined, bodyBytes: number, reusable: boolean): void {
    const exchange = this.inFlight.shift();
    if (exchange === undefined) {
      this.#fail(new ProtocolError('an answer to no request'));
      return;
    }
    if (!reusable) {
      // The server closes after this answer: what else was sent here goes again on a new connection,
      // with its latency still counting from its first send.
      const socket = this.#socket;
      this.#drop();
      socket?.destroy();
      this.#waiting.unshift(...this.inFlight.splice(0));
      if (this.#waiting.length > 0 && !this.#closed) this.#open();
    }
    this.owner.answered(this, exchange, status, headers, bodyBytes);
  }

  /** A transport error: everything in flight here failed; the connection opens again after a pause. */
  #fail(error: Error): void {
    this.#abandon(error, false);
  }

  /** Whether something here has waited longer than `timeoutMs`; if so, it counts as timed out and the connection is reopened. */
  checkTimeout(nowMs: number, timeoutMs: number): void {
    const oldest = this.#connected ? this.inFlight[0]?.sentMs : this.#connectStartMs;
    if (oldest !== undefined && nowMs - oldest >= timeoutMs)
      this.#abandon(new Error(`no answer within ${timeoutMs} ms`), true);
  }

  /** Closes the socket and reports every request on it, sent or waiting, as failed (or timed out). */
  #abandon(error: Error, timedOut: boolean): void {
    const socket = this.#socket;
    if (socket === undefined) return;
    this.#drop();
    socket.destroy();
    const lost = this.inFlight.length + this.#waiting.length;
    this.inFlight.length = 0;
    this.#waiting.length = 0;
    for (let count = 0; count < lost; count++) this.owner.failed(this, error, timedOut);
  }

  #drop(): void {
    this.#socket = undefined;
    this.#connected = false;
  }

  close(): void {
    this.#closed = true;
    const socket = this.#socket;
    this.#drop();
    socket?.destroy();
  }
}

/**
 * One HTTP/2 session and the streams open on it, answered in any order. A session the server ended
 * (GOAWAY, an idle timeout) is opened again for the next request.
 */
class Http2Connection implements LoadConnection {
  owner: LoadRun;
  readonly #origin: string;
  readonly #keepHeaders: boolean;
  readonly #insecure: boolean;
  readonly #headers: (spec: RequestSpec) => OutgoingHttpHeaders;
  #session: ClientHttp2Session | undefined;
  /** In flight, with their streams. */
  readonly #inFlight = new Map<Exchange, { close(code?: number): void }>();
  #closed = false;

  constructor(
    owner: LoadRun,
    origin: string,
    keepHeaders: boolean,
    insecure: boolean,
    headers: (spec: RequestSpec) => OutgoingHttpHeaders,
  ) {
    this.owner = owner;
    this.#origin = origin;
    this.#keepHeaders = keepHeaders;
    this.#insecure = insecure;
    this.#headers = headers;
  }

  #open(): ClientHttp2Session {
    const session = connectHttp2(this.#origin, this.#insecure ? { rejectUnauthorized: false } : {});
    session.on('error', (error) => {
      if (session === this.#session) this.#abandon(error, false);
    });
    session.on('close', () => {
      if (session === this.#session) this.#session = undefined;
    });
    this.#session = session;
    return session;
  }

  send(exchange: Exchange): void {
    const current = this.#session;
    const session = current === undefined || current.closed || current.destroyed ? this.#open() : current;
    const spec = exchange.spec;
    const stream = session.request(this.#headers(spec), { endStream: spec.body === undefined });
    exchange.sentMs = performance.now();
    this.#inFlight.set(exchange, stream);
    let status = 0;
    let headers: ResponseHeaders | undefined;
    let bodyBytes = 0;
    stream.on('response', (received) => {
      status = Number(received[':status']);
      if (this.#keepHeaders) headers = received as ResponseHeaders;
    });
    stream.on('data', (chunk: Buffer) => {
      bodyBytes += chunk.length;
    });
    stream.on('end', () => {
      if (this.#inFlight.delete(exchange)) this.owner.answered(this, exchange, status, headers, bodyBytes);
    });
    stream.on('error', (error) => {
      if (this.#inFlight.delete(exchange)) this.owner.failed(this, error, false);
    });
    if (spec.body !== undefined) stream.end(spec.body);
  }

  checkTimeout(nowMs: number, timeoutMs: number): void {
    for (const exchange of this.#inFlight.keys()) {
      if (nowMs - exchange.sentMs < timeoutMs) continue;
      this.#abandon(new Error(`no answer within ${timeoutMs} ms`), true);
      return;
    }
  }

  /** Ends the session and reports every request on it as failed (or timed out). */
  #abandon(error: Error, timedOut: boolean): void {
    const session = this.#session;
    this.#session = undefined;
    const lost = this.#inFlight.size;
    this.#inFlight.clear();
    session?.destroy();
    for (let count = 0; count < lost; count++) this.owner.failed(this, error, timedOut);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    const session = this.#session;
    this.#session = undefined;
    session?.destroy();
  }
}

/** The connections of one load test, shared by its warm-up and its measured run. */
class ConnectionSet {
  readonly connections: LoadConnection[];
  readonly #bytes = new WeakMap<RequestSpec, Buffer>();
  readonly #http2Headers = new WeakMap<RequestSpec, OutgoingHttpHeaders>();
  readonly #host: string;

  constructor(options: LoadOptions, owner: LoadRun) {
    const origin = new URL(options.origin);
    this.#host = origin.host;
    const keepHeaders = options.inspect !== undefined;
    const insecure = options.insecure === true;
    this.connections = Array.from({ length: options.connections }, () =>
      options.http2 === true
        ? new Http2Connection(owner, origin.origin, keepHeaders, insecure, (spec) => this.http2HeadersOf(spec))
        : new Connection(owner, origin, keepHeaders, insecure),
    );
  }

  /** The HTTP/2 header block of `spec`, made once per spec object. */
  http2HeadersOf(spec: RequestSpec): OutgoingHttpHeaders {
    let headers = this.#http2Headers.get(spec);
    if (headers === undefined) {
      headers = { ':method': spec.method, ':path': spec.path };
      for (const [name, value] of Object.entries(spec.headers)) headers[name.toLowerCase()] = value;
      if (spec.body !== undefined) headers['content-length'] = Buffer.byteLength(spec.body);
      this.#http2Headers.set(spec, headers);
    }
    return headers;
  }

  /** The bytes of `spec`, serialised once per spec object. */
  bytesOf(spec: RequestSpec): Buffer {
    let bytes = this.#bytes.get(spec);
    if (bytes === undefined) {
      bytes = encodeRequest(spec, this.#host);
      this.#bytes.set(spec, bytes);
    }
    return bytes;
  }

  handTo(owner: LoadRun): void {
    for (const connection of this.connections) connection.owner = owner;
  }

  close(): void {
    for (const connection of this.connections) connection.close();
  }
}

/** The state of one run; `start` resolves with the result once every request has been answered or failed. */
class LoadRun {
  readonly result: LoadResult;
  readonly #options: LoadOptions;
  #set: ConnectionSet | undefined;
  #schedule: RateSchedule | undefined;
  /** Index of the next request to send. */
  #issued = 0;
  /** The run's end in performance.now() ms, when it is timed and not paced. */
  #deadlineMs = Number.POSITIVE_INFINITY;
  /** Paced runs end after this many requests (the ones due within the duration, or the amount). */
  #lastIndex = Number.POSITIVE_INFINITY;
  /** Requests sent, or armed to be sent, and not yet answered or failed. */
  #inFlight = 0;
  #startMs = 0;
  #finish: () => void = () => {};

  constructor(options: LoadOptions) {
    this.#options = options;
    this.#schedule = options.ratePerSecond === undefined ? undefined : new RateSchedule(options.ratePerSecond, 0);
    this.result = emptyResult();
  }

  async start(set: ConnectionSet): Promise<LoadResult> {
    const options = this.#options;
    this.#set = set;
    set.handTo(this);
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
    const timeoutCheck = setInterval(
      () => {
        const nowMs = performance.now();
        for (const connection of set.connections) connection.checkTimeout(nowMs, options.timeoutMs);
      },
      Math.min(MAX_TIMEOUT_CHECK_MS, Math.max(1, options.timeoutMs / 4)),
    );
    const stop = (): void => {
      this.#lastIndex = Math.min(this.#lastIndex, this.#issued);
    };
    if (options.stopSignal?.aborted === true) stop();
    options.stopSignal?.addEventListener('abort', stop);
    for (let slot = 0; slot < options.pipelining; slot++)
      for (const connection of set.connections) this.#sendNext(connection);
    if (this.#inFlight === 0) this.#finish();
    await done;
    this.result.elapsedMs = performance.now() - this.#startMs;
    clearInterval(progress);
    clearInterval(timeoutCheck);
    options.stopSignal?.removeEventListener('abort', stop);
    return this.result;
  }

  /** Sends the next request on `connection` if the run is not over; otherwise lets that slot stop. */
  #sendNext(connection: LoadConnection): void {
    const index = this.#issued;
    const nowMs = performance.now();
    if (index >= this.#lastIndex || nowMs >= this.#deadlineMs) {
      if (this.#inFlight === 0) this.#finish();
      return;
    }
    this.#issued += 1;
    this.#inFlight += 1;
    if (this.#schedule === undefined) {
      this.#send(connection, index, nowMs);
      return;
    }
    // Latency counts from the intended time whenever the send is late (no coordinated omission), and
    // from the send itself when a timer let it go up to TIMER_SLACK_MS early.
    const schedule = this.#schedule;
    const waitMs = schedule.waitMs(index, nowMs);
    if (waitMs <= TIMER_SLACK_MS) this.#send(connection, index, schedule.latencyStartMs(index, nowMs));
    else
      setTimeout(
        () => this.#send(connection, index, schedule.latencyStartMs(index, performance.now())),
        waitMs - TIMER_SLACK_MS,
      );
  }

  #send(connection: LoadConnection, index: number, startMs: number): void {
    const spec = this.#options.nextRequest(index);
    // The HTTP/1.1 bytes are not needed over HTTP/2.
    const bytes = this.#options.http2 === true ? EMPTY : (this.#set as ConnectionSet).bytesOf(spec);
    connection.send({ startMs, sentMs: startMs, head: spec.method === 'HEAD', bytes, spec });
  }

  answered(
    connection: LoadConnection,
    exchange: Exchange,
    status: number,
    headers: ResponseHeaders | undefined,
    bodyBytes: number,
  ): void {
    const result = this.result;
    const nowMs = performance.now();
    result.latency.recordMs(nowMs - exchange.startMs);
    result.completed += 1;
    result.bodyBytes += bodyBytes;
    const second = Math.floor((nowMs - this.#startMs) / 1000);
    const perSecond = result.perSecond;
    perSecond.completed[second] = (perSecond.completed[second] ?? 0) + 1;
    perSecond.bodyBytes[second] = (perSecond.bodyBytes[second] ?? 0) + bodyBytes;
    result.statusCounts[status] = (result.statusCounts[status] ?? 0) + 1;
    const options = this.#options;
    const expected = options.expectedStatuses.has(status);
    if (!expected) {
      if (result.stoppedBy === undefined && options.stopOnStatuses?.has(status) === true) {
        // No request is sent after this one; those in flight finish.
        result.stoppedBy = status;
        this.#lastIndex = this.#issued;
        options.onStopped?.(status);
      }
      this.#problem(`unexpected status ${status}`);
    } else if (options.inspect !== undefined) {
      const problem = options.inspect(status, headers ?? {});
      if (problem !== undefined) this.#problem(problem);
    }
    this.#inFlight -= 1;
    this.#sendNext(connection);
  }

  failed(connection: LoadConnection, error: Error, timedOut: boolean): void {
    const result = this.result;
    if (timedOut) result.timeouts += 1;
    else result.errors += 1;
    const code = (error as Error & { code?: string }).code ?? error.name;
    if (result.problems.length < MAX_PROBLEMS_KEPT) result.problems.push(`${code}: ${error.message}`);
    setTimeout(() => {
      this.#inFlight -= 1;
      this.#sendNext(connection);
    }, ERROR_PAUSE_MS);
  }

  #problem(problem: string): void {
    const result = this.result;
    result.unexpected += 1;
    if (result.problems.length < MAX_PROBLEMS_KEPT) result.problems.push(problem);
  }
}

/** Runs one load test (after its warm-up, if any) on this thread and resolves with what it measured. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  if (options.durationMs === undefined && options.amount === undefined)
    throw new TypeError('runLoad needs durationMs or amount');
  let run = new LoadRun(options);
  const set = new ConnectionSet(options, run);
  try {
    let warmupCompleted: number | undefined;
    if (options.warmupMs !== undefined && options.warmupMs > 0) {
      const { onProgress: _progress, ...rest } = options;
      warmupCompleted = (await new LoadRun({ ...rest, durationMs: options.warmupMs, amount: undefined }).start(set))
        .completed;
      run = new LoadRun(options);
    }
    const result = await run.start(set);
    if (warmupCompleted !== undefined) result.warmupCompleted = warmupCompleted;
    return result;
  } finally {
    set.close();
  }
}
