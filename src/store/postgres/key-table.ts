// API keys in PostgreSQL: `animal-store keys … --database-url` and every instance share them. A trigger
// on the table NOTIFYs a channel on every change, and each instance LISTENs on a connection of its own,
// so a key created or revoked anywhere is in force everywhere within a moment. A lost listening
// connection is opened again, and the keys are read again then, since a change may have been missed.
import { Client, type ClientConfig, type Pool } from 'pg';
import type { ApiKey, PlanName } from '../../keys/api-key.js';
import type { KeyTable } from '../../keys/key-table.js';
import { orUnavailable } from './faults.js';
import { KEYS_CHANNEL } from './schema.js';

/** How long a burst of notifications is let settle before the keys are read again. */
const SETTLE_MS = 50;
/**
 * Wait before opening a lost listening connection again. Short, since until it is open again the keys
 * may be stale: the pool is back at the first request once the database is, and a key revoked during
 * the outage must not be served for long after that.
 */
const RELISTEN_MS = 200;
/** The advisory lock that makes "add a first key unless there is one" one step across instances. */
const FIRST_KEY_LOCK = '107014665707885';

interface KeyRow {
  id: string;
  name: string;
  plan: PlanName;
  per_minute: string;
  per_day: string;
  hash: string;
  created_at: string;
  revoked_at: string | null;
}

const COLUMNS = 'id, name, plan, per_minute, per_day, hash, created_at, revoked_at';

const keyOf = (row: KeyRow): ApiKey => ({
  id: row.id,
  name: row.name,
  plan: row.plan,
  perMinute: Number(row.per_minute),
  perDay: Number(row.per_day),
  hash: row.hash,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
});

const rowOf = (key: ApiKey): unknown[] => [
  key.id,
  key.name,
  key.plan,
  key.perMinute,
  key.perDay,
  key.hash,
  key.createdAt,
  key.revokedAt,
];

/** The api_keys table as a key table. */
export class PostgresKeyTable implements KeyTable {
  readonly #pool: Pool;
  readonly #listenConfig: ClientConfig;

  /** `listenConfig` opens the connection that listens for changes (one per watch, outside the pool). */
  constructor(pool: Pool, listenConfig: ClientConfig) {
    this.#pool = pool;
    this.#listenConfig = listenConfig;
  }

  list(): Promise<ApiKey[]> {
    return orUnavailable(async () => {
      const { rows } = await this.#pool.query<KeyRow>(`SELECT ${COLUMNS} FROM api_keys ORDER BY position`);
      return rows.map(keyOf);
    });
  }

  async add(record: ApiKey): Promise<void> {
    try {
      await this.#pool.query(
        `INSERT INTO api_keys (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        rowOf(record),
      );
    } catch (error) {
      if ((error as { code?: string }).code === '23505')
        throw new TypeError(`a key with id ${record.id} exists already`);
      throw error;
    }
  }

  async addIfNoneActive(record: ApiKey): Promise<boolean> {
    const client = await this.#pool.connect();
    // A connection lost while checked out would be an unhandled 'error' event (the pool listens only
    // while it is idle): noted, and the connection closed instead of reused.
    let lost: Error | undefined;
    const onLost = (error: Error): void => {
      lost ??= error;
    };
    client.on('error', onLost);
    try {
      await client.query('BEGIN');
      await client.query(`SELECT pg_advisory_xact_lock(${FIRST_KEY_LOCK})`);
      const { rowCount } = await client.query(
        `INSERT INTO api_keys (${COLUMNS}) SELECT $1, $2, $3, $4, $5, $6, $7, $8
          WHERE NOT EXISTS (SELECT 1 FROM api_keys WHERE revoked_at IS NULL)`,
        rowOf(record),
      );
      await client.query('COMMIT');
      return rowCount === 1;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.off('error', onLost);
      client.release(lost);
    }
  }

  async revoke(id: string, revokedAt: string): Promise<ApiKey | undefined> {
    const { rows } = await this.#pool.query<KeyRow>(
      `UPDATE api_keys SET revoked_at = coalesce(revoked_at, $2) WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, revokedAt],
    );
    return rows[0] === undefined ? undefined : keyOf(rows[0]);
  }

  watch(onChange: () => void, onFailure: (reason: string) => void): () => void {
    let stopped = false;
    let client: Client | undefined;
    let settle: NodeJS.Timeout | undefined;
    let retry: NodeJS.Timeout | undefined;
    let failing = false;
    const changed = (): void => {
      clearTimeout(settle);
      settle = setTimeout(onChange, SETTLE_MS);
      settle.unref();
    };
    const listen = (): void => {
      const listener = new Client(this.#listenConfig);
      client = listener;
      const lost = (error: Error | undefined): void => {
        if (client !== listener) return;
        client = undefined;
        listener.end().catch(() => {});
        if (stopped) return;
        if (!failing) {
          failing = true;
          onFailure(
            `the connection that listens for key changes was lost (${error?.message ?? 'closed'}); reconnecting`,
          );
        }
        retry = setTimeout(listen, RELISTEN_MS);
        retry.unref();
      };
      listener.on('error', lost);
      listener.on('end', () => lost(undefined));
      listener.on('notification', changed);
      listener
        .connect()
        .then(() => listener.query(`LISTEN ${KEYS_CHANNEL}`))
        .then(() => {
          // Keys may have changed while nobody listened: read them now, not after a settling pause.
          if (failing) {
            failing = false;
            onChange();
          }
        })
        .catch(lost);
    };
    listen();
    return () => {
      stopped = true;
      clearTimeout(settle);
      clearTimeout(retry);
      const listener = client;
      client = undefined;
      listener?.end().catch(() => {});
    };
  }
}
