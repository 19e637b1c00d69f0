// One delivery attempt over HTTP: POST the signed event to the subscriber's URL through the guarded
// connector, never follow a redirect, read at most 64 KiB of the answer and keep its first 1 KiB as
// text, and bound the whole attempt in time. Every failure comes back as a result with a short
// `error`, never as an exception: the caller records it as the attempt's outcome.
import { lookup as dnsLookup } from 'node:dns';
import { Agent, type Dispatcher, errors as undiciErrors, request } from 'undici';
import { type Clock, systemClock } from '../core/clock.js';
import { AddressRefusedError, createGuardedConnector, DnsLookupError, type LookupAll } from './guarded-connector.js';
import { validateWebhookUrl } from './webhook-url.js';

/** The statuses that redirect (RFC 9110 §15.4): not followed; other 3xx answers (304) are failures too. */
const REDIRECTS = new Set([300, 301, 302, 303, 307, 308]);

/** The overall bound of one attempt when none is given: connect, send, answer and its body. */
export const DEFAULT_DELIVERY_TIMEOUT_MS = 10_000;
/** The bound of resolution and TCP/TLS handshakes when none is given (never above the overall one). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
/** The most of an answer that is read; a longer one has its connection dropped instead. */
export const MAX_ANSWER_READ_BYTES = 64 * 1024;
/** The part of an answer kept, as text, in the attempt's `response`. */
export const ANSWER_TEXT_BYTES = 1024;

/** An idle connection is kept this long unless the receiver's Keep-Alive says less. */
const KEEP_ALIVE_MS = 4_000;
/** The longest a receiver's `Keep-Alive: timeout=` may keep an idle connection. */
const KEEP_ALIVE_MAX_MS = 30_000;

/** How the transport sends: the operator's address setting, timeouts, and the collaborators tests replace. */
export interface DeliveryTransportOptions {
  /** Opens every address the address policy refuses (`--webhook-allow-private`). */
  readonly allowPrivate: boolean;
  /** The whole attempt, from connect to the end of the answer read; DEFAULT_DELIVERY_TIMEOUT_MS if absent. */
  readonly timeoutMs?: number;
  /**
   * Resolution and handshakes, capped at `timeoutMs`; DEFAULT_CONNECT_TIMEOUT_MS if absent. undici
   * checks it on its coarse timer (half-second ticks), so it may expire up to about a second late.
   */
  readonly connectTimeoutMs?: number;
  /** The DNS resolver; `dns.lookup` by default. */
  readonly lookup?: LookupAll;
  /** The source of `durationMs`. */
  readonly clock?: Pick<Clock, 'monotonic'>;
}

/** One attempt: where, with which headers (the signature among them), and the event's JSON. */
export interface DeliveryRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array;
}

/**
 * What came of an attempt. It succeeded exactly when `error` is null and `status` is 2xx; a non-2xx
 * answer read in full has `error` null and its status, a redirect has its status and an error.
 */
export interface DeliveryResult {
  /** The answer's HTTP status, or null when none came. */
  readonly status: number | null;
  /** A short reason the attempt failed (never a secret), or null. */
  readonly error: string | null;
  readonly durationMs: number;
  /** The first 1 KiB of the answer's body as UTF-8 text, or null when no answer came. */
  readonly responseText: string | null;
  /** The answer's `Retry-After` as sent (RFC 9110 §10.2.3: seconds or an HTTP date), when it has one. */
  readonly retryAfter?: string;
}

/** Sends delivery attempts through one connection pool per receiver origin. */
export interface DeliveryTransport {
  /** Makes one attempt; resolves with its outcome, whatever happens on the network. */
  send(delivery: DeliveryRequest): Promise<DeliveryResult>;
  /** Closes the connections once the attempts in flight are done. */
  close(): Promise<void>;
}

/** The abort reason of the overall timeout, told apart from any other abort. */
class AttemptTimeout extends Error {}

function positiveMs(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new TypeError(`createDeliveryTransport: ${name} must be a positive whole number of milliseconds`);
  }
  return value;
}

/** Creates a transport; throws TypeError on bad timeouts. */
export function createDeliveryTransport(options: DeliveryTransportOptions): DeliveryTransport {
  const timeoutMs = positiveMs('timeoutMs', options.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS);
  const connectTimeoutMs = Math.min(
    timeoutMs,
    positiveMs('connectTimeoutMs', options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS),
  );
  const clock = options.clock ?? systemClock;
  const agent = new Agent({
    connect: createGuardedConnector({
      allowPrivate: options.allowPrivate,
      lookup: options.lookup ?? dnsLookup,
      connectTimeoutMs,
    }),
    // No bound a receiver's origin: the worker's bounds (attempts a subscription, and in all) hold, and
    // one here would let the subscriptions hanging at a shared host hold back the others there.
    connections: null,
    keepAliveTimeout: KEEP_ALIVE_MS,
    keepAliveMaxTimeout: KEEP_ALIVE_MAX_MS,
    // Backstops: the overall timeout below, started first, fires before these.
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const timeouts = { timeoutMs, connectTimeoutMs };

  async function send(delivery: DeliveryRequest): Promise<DeliveryResult> {
    const startedMs = clock.monotonic();
    const elapsedMs = () => Math.round(clock.monotonic() - startedMs);
    // The same shape rules as at subscription; the addresses are the connector's to check.
    const checked = validateWebhookUrl(delivery.url, { allowPrivate: true });
    if (!checked.ok) return { status: null, error: checked.reason, durationMs: elapsedMs(), responseText: null };

    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new AttemptTimeout()), timeoutMs);
    try {
      const answer = await request(checked.url, {
        dispatcher: agent,
        method: 'POST',
        headers: delivery.headers,
        body: delivery.body,
        signal: controller.signal,
      });
      const read = await readAnswer(answer);
      const retryAfter = firstValue(answer.headers['retry-after']);
      const error =
        read.failure !== undefined
          ? `${describeFailure(read.failure, controller.signal, timeouts)} while reading the answer`
          : REDIRECTS.has(answer.statusCode)
            ? 'redirect not followed'
            : answer.statusCode >= 300 && answer.statusCode < 400
              ? `a ${answer.statusCode} answer is not a success`
              : null;
      return {
        status: answer.statusCode,
        error,
        durationMs: elapsedMs(),
        responseText: read.text,
        ...(retryAfter === undefined ? {} : { retryAfter }),
      };
    } catch (failure) {
      const error = describeFailure(failure, controller.signal, timeouts);
      return { status: null, error, durationMs: elapsedMs(), responseText: null };
    } finally {
      clearTimeout(timer);
    }
  }

  return { send, close: () => agent.close() };
}

/** The first value of a header undici may give as a list. */
function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Reads the body to MAX_ANSWER_READ_BYTES at most, then drops the connection rather than read on: a
 * short answer read to its end leaves the connection reusable, a long one costs no more than the
 * cap. An answer that declares a longer Content-Length cannot leave it reusable, so only the text
 * kept is read. A failure midway keeps what was read.
 */
async function readAnswer(answer: Dispatcher.ResponseData): Promise<{ text: string; failure?: unknown }> {
  const declaredBytes = Number(firstValue(answer.headers['content-length']) ?? Number.NaN);
  const limitBytes = declaredBytes > MAX_ANSWER_READ_BYTES ? ANSWER_TEXT_BYTES : MAX_ANSWER_READ_BYTES;
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let readBytes = 0;
  let failure: unknown;
  try {
    for await (const chunk of answer.body as AsyncIterable<Buffer>) {
      if (keptBytes < ANSWER_TEXT_BYTES) {
        const part = chunk.subarray(0, ANSWER_TEXT_BYTES - keptBytes);
        kept.push(part);
        keptBytes += part.length;
      }
      readBytes += chunk.length;
      // Leaving the loop destroys the body, and with it the connection.
      if (readBytes >= limitBytes) break;
    }
  } catch (error) {
    failure = error;
  }
  const text = answerText(Buffer.concat(kept), readBytes > keptBytes);
  return failure === undefined ? { text } : { text, failure };
}

/**
 * UTF-8 text of the kept bytes: invalid sequences become U+FFFD, a character cut by the 1 KiB limit is
 * left out rather than mangled, and U+0000 becomes U+FFFD too, since PostgreSQL text cannot hold it.
 */
export function answerText(bytes: Uint8Array, truncated: boolean): string {
  return new TextDecoder('utf-8').decode(bytes, { stream: truncated }).replaceAll('\u0000', '\uFFFD');
}

/** Error codes of node:net and undici, as the attempt's short reason. */
const FAILURE_REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  UND_ERR_SOCKET: 'connection closed before the answer ended',
  ENETUNREACH: 'network unreachable',
  EHOSTUNREACH: 'host unreachable',
  UND_ERR_HEADERS_OVERFLOW: 'answer headers too large',
};

/** The code of an error, or of the first of an AggregateError (node:net's failed IPv6/IPv4 race). */
function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  if (error instanceof AggregateError) return errorCode(error.errors[0]);
  return undefined;
}

/** A short reason for `failure`, naming which timeout expired when one did. */
function describeFailure(
  failure: unknown,
  signal: AbortSignal,
  timeouts: { timeoutMs: number; connectTimeoutMs: number },
): string {
  if (signal.aborted && signal.reason instanceof AttemptTimeout) return `timed out after ${timeouts.timeoutMs} ms`;
  if (failure instanceof AddressRefusedError || failure instanceof DnsLookupError) return failure.message;
  // undici's parser errors carry no code here, and its HTTP/1.1 client checks what the parser hands it
  // (a status from 100, a message that ends once) with assertions, whose wording differs by Node version.
  if (failure instanceof undiciErrors.HTTPParserError || errorCode(failure) === 'ERR_ASSERTION')
    return 'answer is not valid HTTP/1.1';
  const code = errorCode(failure);
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return `connect timed out after ${timeouts.connectTimeoutMs} ms`;
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return `no answer within ${timeouts.timeoutMs} ms`;
  if (code === 'UND_ERR_BODY_TIMEOUT') return `answer body stalled for ${timeouts.timeoutMs} ms`;
  if (code === undefined) return 'request failed';
  const reason = FAILURE_REASONS[code];
  if (reason !== undefined) return reason;
  // node:tls codes: ERR_TLS_CERT_ALTNAME_INVALID, CERT_HAS_EXPIRED, DEPTH_ZERO_SELF_SIGNED_CERT...
  if (code.startsWith('ERR_TLS') || code.includes('CERT') || code.includes('SSL')) return `TLS failed (${code})`;
  return `request failed (${code})`;
}
