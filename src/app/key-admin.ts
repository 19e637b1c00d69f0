// The key table that `animal-store keys` works on, chosen as openStore chooses a store: with a database
// URL the api_keys table of PostgreSQL (its schema created or brought up to date), otherwise the keys
// file of the data directory. Opened without the rest of the store: no lock is taken and no journal
// replayed, so keys are managed while a service runs on the same directory or database.
import { access } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { nodeFs } from '../journal/node-fs.js';
import { DATA_DIR_MODE } from '../journal/open-journal.js';
import type { KeyTable } from '../keys/key-table.js';
import { FileKeyTable, KEYS_FILE } from '../store/embedded/key-file.js';
import { JOURNAL_FILE } from '../store/embedded/open-embedded-store.js';
import { type BackendSettings, describeBackends } from './describe-backends.js';
import { NoStoreError } from './no-store-error.js';

/** A key table opened for administration, and what people are told about it. */
export interface AdminKeyTable {
  readonly table: KeyTable;
  /** Where the hashes are kept: the keys file's full path, or the table and its database (no password). */
  readonly where: string;
  /** The table as a sentence names it: "the keys file in ./data". */
  readonly name: string;
  /** Who picks a change up: "a service on that directory". */
  readonly readers: string;
  /**
   * Throws a NoStoreError when the place holds no store yet (a data directory with neither keys file
   * nor journal: most likely a mistyped path); a database always holds one once opened.
   */
  assertHoldsStore(): Promise<void>;
  /** Makes the place ready for a first key (the data directory created, private to its owner). */
  prepare(): Promise<void>;
  close(): Promise<void>;
}

/** Opens the key table the settings name: the database's when there is a URL, else the data directory's. */
export async function openKeyTable(settings: Pick<BackendSettings, 'databaseUrl' | 'dataDir'>): Promise<AdminKeyTable> {
  const { databaseUrl, dataDir } = settings;
  if (databaseUrl !== undefined) {
    // Loaded only when asked for: managing the keys of a data directory never loads the PostgreSQL driver.
    const { openPool, connectionConfig } = await import('../store/postgres/open-postgres-store.js');
    const { PostgresKeyTable } = await import('../store/postgres/key-table.js');
    const { pool } = await openPool(databaseUrl, 1);
    const place = `the api_keys table of ${describeBackends({ databaseUrl }).dataPlace}`;
    return {
      table: new PostgresKeyTable(pool, connectionConfig(databaseUrl)),
      where: place,
      name: place,
      readers: 'every service on that database',
      assertHoldsStore: async () => {},
      prepare: async () => {},
      close: () => pool.end(),
    };
  }
  if (dataDir === undefined) throw new TypeError('keys are kept in a data directory or a database; name one');
  return {
    table: new FileKeyTable(dataDir),
    where: resolve(dataDir, KEYS_FILE),
    name: `the keys file in ${dataDir}`,
    readers: 'a service on that directory',
    assertHoldsStore: async () => {
      const exists = (name: string): Promise<boolean> =>
        access(join(dataDir, name)).then(
          () => true,
          () => false,
        );
      const present = await Promise.all([exists(KEYS_FILE), exists(JOURNAL_FILE)]);
      if (!present.includes(true))
        throw new NoStoreError(`${resolve(dataDir)} holds no animal store (no ${KEYS_FILE}, no ${JOURNAL_FILE})`);
    },
    prepare: () => nodeFs.mkdir(dataDir, DATA_DIR_MODE),
    close: async () => {},
  };
}
