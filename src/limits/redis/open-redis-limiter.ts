// Opening the Redis limiter: connect (a Redis that cannot be reached stops the start with one line
// naming its address and the cause, as the PostgreSQL store does), then hand the connection to the
// limiter. Loaded only when a Redis URL is configured: the default never loads the client.
import { setTimeout as delay } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { resolveLimiterOptions, type LimiterOptions } from '../options.js';
import { type LimiterUnavailable, RedisLimiter } from './redis-limiter.js';

/** How long a command may take before it fails (and the request is answered as if Redis were away). */
export const COMMAND_TIMEOUT_MS = 1000;
/** How long connecting may take. */
const CONNECT_TIMEOUT_MS = 2000;
/** How long a disconnect waits for the socket to close (see its use). */
const DISCONNECT_TIMEOUT_MS = 100;
/**
 * How long the start waits for Redis's first answers (the client's ready check, then a `PING`). On a
 * busy host one of them can miss the requests' command timeout, and that alone should not stop the
 * start; a refused connection or a name that does not resolve still stops it at once.
 */
export const START_TIMEOUT_MS = 10_000;

/** How to open the Redis limiter. */
export interface RedisLimiterOptions {
  redisUrl: string;
  prefix: string;
  unavailable: LimiterUnavailable;
  limits: LimiterOptions | undefined;
  /** Warnings for an operator; `fields` carries the client library's own error, as a detail. */
  warn: (line: string, fields?: Record<string, unknown>) => void;
  /** For tests: the time the scripts use instead of Redis's clock. */
  time?: () => number;
  /** For tests: how long the start waits for Redis's first answers (default {@link START_TIMEOUT_MS}). */
  startTimeoutMs?: number;
}

/** A Redis address for messages: host and port, never a password. */
export function describeRedis(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.hostname}:${parsed.port || '6379'}`;
  } catch {
    return 'the configured Redis address';
  }
}

/** Connects to Redis and returns the limiter on it. */
export async function openRedisLimiter(options: RedisLimiterOptions): Promise<RedisLimiter> {
  const where = describeRedis(options.redisUrl);
  const startTimeoutMs = options.startTimeoutMs ?? START_TIMEOUT_MS;
  const redis = new Redis(options.redisUrl, {
    lazyConnect: true,
    connectTimeout: CONNECT_TIMEOUT_MS,
    // How long a disconnect waits for the socket to close before destroying it. ioredis's 2 s timer
    // also runs when the socket had already failed (a refused start), keeping the process alive.
    disconnectTimeout: DISCONNECT_TIMEOUT_MS,
    // The start's patience; the requests' own timeout is set once Redis has answered.
    commandTimeout: startTimeoutMs,
    // While disconnected, commands fail at once instead of waiting in a queue: no request hangs.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // Reconnect for ever, a little later each time, at most every 2 s.
    retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
  });
  // Errors surface through the commands; without a listener, ioredis would print each one. The last
  // one is kept: it names the cause (ECONNREFUSED, a DNS failure) where a failed connect says only
  // that the connection closed.
  let lastError: Error | undefined;
  redis.on('error', (error: Error) => {
    lastError = error;
  });
  // An error of an earlier outage does not name the cause of the next one.
  redis.on('ready', () => {
    lastError = undefined;
  });
  const startTimer = new AbortController();
  try {
    await Promise.race([
      redis.connect().then(() => redis.ping()),
      // The client's first commands (its ready check among them) each have the whole start timeout:
      // this bounds them together.
      delay(startTimeoutMs, undefined, { signal: startTimer.signal }).then(
        () => Promise.reject(new Error(`no answer within ${startTimeoutMs} ms`)),
        () => undefined,
      ),
    ]);
  } catch (error) {
    redis.disconnect();
    throw new Error(`cannot reach Redis at ${where}: ${(lastError ?? (error as Error)).message}`);
  } finally {
    startTimer.abort();
    // ioredis reads this option as each command is sent (also the client's own, after a failed start).
    redis.options.commandTimeout = COMMAND_TIMEOUT_MS;
  }
  return new RedisLimiter({
    redis,
    prefix: options.prefix,
    options: resolveLimiterOptions(options.limits),
    unavailable: options.unavailable,
    ...(options.time !== undefined && { time: options.time }),
    onAvailability: (available, error) => {
      if (available) {
        options.warn(`Redis at ${where} answers again; rate limits are enforced again`);
        return;
      }
      const meanwhile =
        options.unavailable === 'closed'
          ? 'API requests get 503 until it answers again (--limiter-unavailable closed)'
          : 'API requests are served without rate limits until it answers again (--limiter-unavailable open)';
      const detail = { error: error?.message, ...(lastError !== undefined && { connectionError: lastError.message }) };
      options.warn(
        `Redis at ${where} cannot be reached (${outageCause(error, lastError)}); ${meanwhile}; reconnecting every 2 s at most`,
        detail,
      );
    },
  });
}

/**
 * Why Redis stopped answering, in an operator's words: the client's own message ("Stream isn't writeable
 * and enableOfflineQueue options is false") speaks of its internals. `connection` is the last error
 * of the connection itself, when there was one (a refused reconnection names the cause best).
 */
export function outageCause(command: Error | undefined, connection: Error | undefined): string {
  const code = (connection as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ECONNREFUSED') return 'connection refused: nothing listens there';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'its host name does not resolve';
  if (code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'the host cannot be reached';
  const message = command?.message ?? '';
  if (message.includes('timed out')) return `no answer within ${COMMAND_TIMEOUT_MS} ms`;
  if (/writeable|Connection is closed|ECONNRESET|EPIPE/.test(message)) return 'the connection was lost';
  return 'a command failed';
}
