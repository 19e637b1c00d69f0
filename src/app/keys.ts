// The keys a service accepts: those of the options, and those its store keeps, reloaded whenever the
// store's key table changes (another process ran `animal-store keys`) and on demand (SIGHUP). With no
// usable key at all, a first one is created so that a new installation can be used at once.
import { type ApiKey, generateKey, hashKey, newKeyId } from '../auth/api-key.js';
import { KeyRing } from '../auth/key-ring.js';
import type { Clock } from '../clock.js';
import { type Limiter, PLAN_LIMITS } from '../limits/index.js';
import type { KeyTable } from '../store/store.js';

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
  limiter: Limiter;
  warn: (line: string) => void;
}

/** Loads the keys, creates a first one if there is none and it is wanted, and follows the table's changes. */
export async function loadKeys(table: KeyTable, options: KeyOptions): Promise<ServiceKeys> {
  const ring = new KeyRing(options.fixedKeys, await table.list());
  let firstKey: string | undefined;
  if (ring.activeCount === 0 && options.createFirstKey) {
    const candidate = generateKey();
    const added = await table.addIfNoneActive({
      id: newKeyId(),
      name: 'first key',
      plan: 'free',
      ...PLAN_LIMITS.free,
      hash: hashKey(candidate),
      createdAt: new Date(options.clock.now()).toISOString(),
      revokedAt: null,
    });
    // Another instance starting at the same moment may have made the first key: this one then shows none.
    if (added) firstKey = candidate;
    ring.replaceStoredKeys(await table.list());
  }
  const reload = async (): Promise<void> => {
    const keys = await table.list();
    ring.replaceStoredKeys(keys);
    for (const key of keys) if (key.revokedAt !== null) await options.limiter.forgetKey(key.id);
  };
  const stopWatching = table.watch(
    () => {
      reload().catch((error: unknown) => options.warn(`keys not reloaded: ${(error as Error).message}`));
    },
    (reason) => options.warn(`keys no longer followed: ${reason}`),
  );
  return { ring, firstKey, reload, stopWatching };
}
