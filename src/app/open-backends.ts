// Which store and which limiter a configuration names, opened. With a database URL the PostgreSQL store;
// otherwise the embedded store in the data directory (or in memory without one). With a Redis URL the
// limiter shared through Redis; otherwise the in-memory one, which keeps its state file in the data
// directory, if there is one.
import { join, resolve } from 'node:path';
import { type Clock, systemClock } from '../clock.js';
import type { Settings } from '../config.js';
import { type Limiter, type LimiterOptions, MemoryLimiter } from '../limits/index.js';
import { openEmbeddedStore } from '../store/embedded/open-embedded-store.js';
import type { Store } from '../store/store.js';

/** The in-memory limiter's state file inside the data directory. */
export const LIMITER_STATE_FILE = 'limits.json';

/** Opens the store the settings name. */
export async function openStore(settings: Settings, clock: Clock, warn: (line: string) => void): Promise<Store> {
  if (settings.databaseUrl !== undefined) {
    // Loaded only when asked for: the embedded default never loads the PostgreSQL driver.
    const { openPostgresStore } = await import('../store/postgres/open-postgres-store.js');
    return openPostgresStore({ databaseUrl: settings.databaseUrl, poolSize: settings.databasePoolSize, clock, warn });
  }
  return openEmbeddedStore({
    dataDir: settings.dataDir === undefined ? undefined : resolve(settings.dataDir),
    clock,
    durability: settings.durability,
    fsyncIntervalMs: settings.fsyncIntervalMs,
    compactMinRecords: settings.compactMinRecords,
    warn,
  });
}

/** Opens the limiter the settings name, restoring what it saved at its last graceful stop. */
export async function openLimiter(
  settings: Settings,
  clock: Clock,
  options: LimiterOptions | undefined,
  warn: (line: string) => void,
): Promise<Limiter> {
  if (settings.redisUrl !== undefined) {
    // Loaded only when asked for: the default never loads the Redis client. Its state lives in Redis.
    const { openRedisLimiter } = await import('../limits/redis/open-redis-limiter.js');
    return openRedisLimiter({
      redisUrl: settings.redisUrl,
      prefix: settings.redisPrefix,
      unavailable: settings.limiterUnavailable,
      limits: options,
      warn,
      // A program that passes a clock of its own (a test's ManualClock) has the scripts timed by it, as
      // the in-memory limiter is; with the real clock, Redis's TIME keeps instances in agreement.
      ...(clock !== systemClock && { time: () => clock.now() }),
    });
  }
  if (settings.dataDir === undefined) return new MemoryLimiter(clock, options);
  return MemoryLimiter.open(clock, options, join(resolve(settings.dataDir), LIMITER_STATE_FILE));
}
