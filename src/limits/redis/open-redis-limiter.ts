// Opening the Redis limiter: connect (a Redis that cannot be reached stops the start with one line
// naming its address and the cause, as the PostgreSQL store does), then hand the connection to the
// limiter. Loaded only when a Redis URL is configured: the default never loads the client.
import { Redis } from 'ioredis';
import { resolveLimiterOptions, type LimiterOptions } from '../options.js';
import { type LimiterUnavailable, RedisLimiter } from './redis-limiter.js';

/** How long a command may take before it fails (and the request is answered as if Redis were away). */
export const COMMAND_TIMEOUT_MS = 1000;
/** How long connecting may take. */
const CONNECT_TIMEOUT_MS = 2000;

/** How to open the Redis limiter. */
export interface RedisLimiterOptions {
  redisUrl: string;
  prefix: string;
  unavailable: LimiterUnavailable;
  limits: LimiterOptions | undefined;
  warn: (line: string) => void;
  /** For tests: the time the scripts use instead of Redis's clock. */
  time?: () => number;
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
  const redis = new Redis(options.redisUrl, {
    lazyConnect: true,
    connectTimeout: CONNECT_TIMEOUT_MS,
    commandTimeout: COMMAND_TIMEOUT_MS,
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
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    throw new Error(`cannot reach Redis at ${where}: ${(lastError ?? (error as Error)).message}`);
  }
  return new RedisLimiter({
    redis,
    prefix: options.prefix,
    options: resolveLimiterOptions(options.limits),
    unavailable: options.unavailable,
    ...(options.time !== undefined && { time: options.time }),
    onAvailability: (available, cause) =>
      options.warn(
        available
          ? `Redis at ${where} answers again; rate limits are enforced again`
          : `Redis at ${where} cannot be reached (${cause}); ${
              options.unavailable === 'closed'
                ? 'API requests get 503 until it answers again (--limiter-unavailable closed)'
                : 'API requests are served without rate limits until it answers again (--limiter-unavailable open)'
            }`,
      ),
  });
}
