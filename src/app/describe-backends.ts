// What the backends a configuration names mean, without opening them: the command line asks here
// (may several processes serve? where is the data?) instead of reading the settings itself, so the
// choice that openStore and openLimiter make is described in the one place that makes it.
import { resolve } from 'node:path';
import type { Settings } from '../config/settings.js';
import { describeDatabase } from '../store/postgres/faults.js';

/** The settings that choose the backends. */
export type BackendSettings = Partial<Pick<Settings, 'databaseUrl' | 'redisUrl' | 'dataDir'>>;

/** What the backends a configuration names mean to whoever runs them, without opening them. */
export interface BackendsDescription {
  /** Every process on these settings reads and writes the same data (PostgreSQL). */
  sharedStore: boolean;
  /** Every process counts against the same rate limits (Redis). */
  sharedLimits: boolean;
  /** The store keeps its data in the data directory (the embedded store), which it then needs. */
  storeInDataDir: boolean;
  /** The data outlives the process: kept in a data directory or a database, not in memory only. */
  durable: boolean;
  /** Where the data lives, for people: the database (never its password), the directory in full, or "memory". */
  dataPlace: string;
}

/** What the settings' backends are, as openStore and openLimiter will choose them. */
export function describeBackends(settings: BackendSettings): BackendsDescription {
  const { databaseUrl, redisUrl, dataDir } = settings;
  const inDatabase = databaseUrl !== undefined;
  return {
    sharedStore: inDatabase,
    sharedLimits: redisUrl !== undefined,
    storeInDataDir: !inDatabase,
    durable: inDatabase || dataDir !== undefined,
    dataPlace: inDatabase
      ? `PostgreSQL at ${describeDatabase(databaseUrl)}`
      : dataDir === undefined
        ? 'memory'
        : resolve(dataDir),
  };
}
