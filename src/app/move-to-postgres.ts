// Moving an embedded store into PostgreSQL (`animal-store migrate`), for a move from one instance to
// many: the data directory is opened as a service would open it (locked, its journal replayed), read
// whole, and copied into an empty database in one transaction. The directory is left as it was.
import { access } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Clock } from '../core/clock.js';
import type { Copied } from '../store/postgres/copy-in.js';
import { NoStoreError } from './no-store-error.js';

/** What a move takes. */
export interface MoveOptions {
  /** The embedded store's data directory (it must hold a journal). */
  dataDir: string;
  /** The PostgreSQL database to copy into: empty of animal-store data; its schema is created. */
  databaseUrl: string;
  clock: Clock;
  /** Where the embedded store's warnings go while it is open (a torn tail cut off, a stale lock taken over). */
  warn: (line: string) => void;
}

/** Copies the embedded store of `dataDir` into the database; how many of each were copied. */
export async function moveToPostgres(options: MoveOptions): Promise<Copied> {
  const { dataDir, databaseUrl, clock, warn } = options;
  // Both backends are loaded only here: serving never loads this.
  const { JOURNAL_FILE, openEmbeddedStore } = await import('../store/embedded/open-embedded-store.js');
  const holdsStore = await access(join(dataDir, JOURNAL_FILE)).then(
    () => true,
    () => false,
  );
  if (!holdsStore) throw new NoStoreError(`${resolve(dataDir)} holds no animal store (no ${JOURNAL_FILE})`);
  const source = await openEmbeddedStore({
    dataDir,
    clock,
    durability: 'always',
    fsyncIntervalMs: 1000,
    // Nothing is written, so nothing is compacted.
    compactMinRecords: Number.MAX_SAFE_INTEGER,
    warn,
  });
  try {
    const { state } = source;
    const contents = {
      pets: [...state.pets.values()],
      orders: [...state.orders.values()],
      answers: [...state.idempotency.live(clock.now())],
      keys: await source.keys.list(),
      nextPetId: state.pets.nextId,
      nextOrderId: state.orders.nextId,
      cursorSecret: source.cursorSecret,
    };
    const { openPool } = await import('../store/postgres/open-postgres-store.js');
    const { copyIntoEmpty } = await import('../store/postgres/copy-in.js');
    const { pool } = await openPool(databaseUrl, 1);
    try {
      return await copyIntoEmpty(pool, contents);
    } finally {
      await pool.end();
    }
  } finally {
    await source.close();
  }
}
