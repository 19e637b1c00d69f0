// The keys a service accepts: those of the options, and those its store keeps, reloaded whenever the
// store's key table changes (another process ran `animal-store keys`) and on demand (`reloadKeys()`,
// which `animal-store serve` calls on KEYS_RELOAD_SIGNAL). With no usable key at all, a first one is
// created so that a new installation can be used at once.
import type { Awaitable } from '../core/awaitable.js';
import type { Clock } from '../core/clock.js';
import type { ApiKey } from './api-key.js';
import { KeyRing } from './key-ring.js';
import { KeyService } from './key-service.js';
import type { KeyTable } from './key-table.js';

/**
 * The signal on which `animal-store serve` reads its keys again, the one an operator is told to send
 * when changes can no longer be noticed on their own. Not SIGHUP: that one stops the service, as a
 * closed terminal stops the programs started from it. Not SIGUSR1: Node's own (it starts the inspector).
 */
export const KEYS_RELOAD_SIGNAL = 'SIGUSR2';

/** The accepted keys, and how they follow the store. */
export interface ServiceKeys {
  readonly ring: KeyRing;
  /** The key created on this first start, if one was: shown once, never stored. */
  readonly firstKey: string | undefined;
  /** Reads the store's keys again; a revoked key's limiter state is forgotten. */
  reload(): Promise<void>;
  /** Stops following the store's key table. */
  stopWatching(): void;
}

/** What loadKeys needs besides the table. */
export interface KeyOptions {
  fixedKeys: readonly ApiKey[];
  createFirstKey: boolean;
  clock: Clock;
  /** Forgets what the rate limits hold of a key (it was revoked). */
  forgetKey: (id: string) => Awaitable<void>;
  warn: (line: string) => void;
}

/** Loads the keys, creates a first one if there is none and it is wanted, and follows the table's changes. */
export async function loadKeys(table: KeyTable, options: KeyOptions): Promise<ServiceKeys> {
  const ring = new KeyRing(options.fixedKeys, await table.list());
  let firstKey: string | undefined;
  if (ring.activeCount === 0 && options.createFirstKey) {
    // Another instance starting at the same moment may have made the first key: this one then shows none.
    firstKey = await new KeyService(table, options.clock).createFirst();
    ring.replaceStoredKeys(await table.list());
  }
  const reload = async (): Promise<void> => {
    const keys = await table.list();
    ring.replaceStoredKeys(keys);
    for (const key of keys) if (key.revokedAt !== null) await options.forgetKey(key.id);
  };
  const stopWatching = table.watch(
    () => {
      reload().catch((error: unknown) => options.warn(`keys not reloaded: ${(error as Error).message}`));
    },
    (reason) => options.warn(`keys no longer followed: ${reason}`),
  );
  return { ring, firstKey, reload, stopWatching };
}
