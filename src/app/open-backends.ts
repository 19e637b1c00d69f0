// Which store and which limiter a configuration names, opened; the one place that decides. With a
// database URL the PostgreSQL store; otherwise the embedded store in the data directory (or in memory
// without one). With a Redis URL the limiter shared through Redis; otherwise the in-memory one, which
// keeps its state file in the data directory, if there is one. describe-backends.ts says what the same
// choice means, for whoever must know without opening anything (the command line).
import { join, resolve } from 'node:path';
import type { Settings } from '../config/settings.js';
import { type Clock, systemClock } from '../core/clock.js';
import type { JournalWatch } from '../journal/journal-watch.js';
import { type Limiter, type LimiterOptions, MemoryLimiter } from '../limits/index.js';
import { openEmbeddedStore } from '../store/embedded/open-embedded-store.js';
import type { Store } from '../store/store.js';

/** The in-memory limiter's state file inside the data directory. */
export const LIMITER_STATE_FILE = 'limits.json';

/** An opened store, and what only the composition root hands on: the journal, for metrics, if it has one. */
export interface OpenedStore {
  store: Store;
  /** The embedded store's journal on a data directory; undefined for PostgreSQL and in memory. */
  journal: JournalWatch | undefined;
}

/** Opens the store the settings name. */
export async function openStore(settings: Settings, clock: Clock, warn: (line: string) => void): Promise<OpenedStore> {
  if (settings.databaseUrl !== undefined) {
    // Loaded only when asked for: the embedded default never loads the PostgreSQL driver.
    const { openPostgresStore } = await import('../store/postgres/open-postgres-store.js');
    const store = await openPostgresStore({
      databaseUrl: settings.databaseUrl,
      poolSize: settings.databasePoolSize,
      clock,
      warn,
    });
    return { store, journal: undefined };
  }
  const store = await openEmbeddedStore({
    dataDir: settings.dataDir === undefined ? undefined : resolve(settings.dataDir),
    clock,
    durability: settings.durability,
    fsyncIntervalMs: settings.fsyncIntervalMs,
    compactMinRecords: settings.compactMinRecords,
    warn,
  });
  return { store, journal: store.journalWatch };
}

/** Opens the limiter the settings name, restoring what it saved at its last graceful stop. */
export async function openLimiter(
  settings: Settings,
  clock: Clock,
  options: LimiterOptions | undefined,
  warn: (line: string, fields?: Record<string, unknown>) => void,
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
  return MemoryLimiter.open(clock, options, join(resolve(settings.dataDir), LIMITER_STATE_FILE), warn);
}
