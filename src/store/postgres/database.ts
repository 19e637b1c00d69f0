// The pool of a PostgreSQL store as its parts use it: one statement, or a transaction on one
// connection, each failure that means the database is away turned into the 503 of faults.ts, and the
// store told once when the database stops answering and once when it answers again.
import type { CustomTypesConfig, Pool, PoolClient, QueryConfig, QueryResultRow } from 'pg';
import { isUnavailable, unavailableError } from './faults.js';

/** Type parsers that leave every value as the text the server sent. */
const AS_TEXT: CustomTypesConfig = { getTypeParser: () => (text: string) => text };

/** The database of one store, shared by the parts that read and write it. */
export class Database {
  readonly pool: Pool;
  readonly #onAvailability: (available: boolean, cause: string) => void;
  #available = true;
  /** Statement names by text: a statement built from a change's shape is prepared once per connection. */
  readonly #names = new Map<string, string>();

  /** `onAvailability` is told when the database stops answering and when it answers again (once each per outage). */
  constructor(pool: Pool, onAvailability: (available: boolean, cause: string) => void) {
    this.pool = pool;
    this.#onAvailability = onAvailability;
  }

  /** A named statement: the server parses and plans it once per connection. */
  statement(text: string, values: unknown[]): QueryConfig {
    let name = this.#names.get(text);
    if (name === undefined) {
      name = `animal_store_${this.#names.size + 1}`;
      this.#names.set(text, name);
    }
    return { name, text, values };
  }

  /**
   * The rows of one statement as arrays of the columns' texts (null for NULL), on any connection of the
   * pool: no conversion of any value and no object per row, for the reads that pass text through.
   */
  async texts(config: QueryConfig): Promise<Array<Array<string | null>>> {
    try {
      const result = await this.pool.query<Array<string | null>>({ ...config, rowMode: 'array', types: AS_TEXT });
      this.#answered();
      return result.rows;
    } catch (error) {
      throw this.#fault(error);
    }
  }

  /** The rows of one statement, on any connection of the pool. */
  async query<R extends QueryResultRow>(config: QueryConfig): Promise<R[]> {
    try {
      const result = await this.pool.query<R>(config);
      this.#answered();
      return result.rows;
    } catch (error) {
      throw this.#fault(error);
    }
  }

  /** Runs `work` in a transaction on one connection; commits when it resolves, rolls back when it throws. */
  async transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw this.#fault(error);
    }
    let broken: Error | undefined;
    // The pool listens for a connection's errors only while it is idle: one lost while checked out here
    // (between two statements of the transaction) would be an unhandled 'error' event and end the
    // process. Noted instead; the statement under way fails on its own, and the connection is closed.
    const onLost = (error: Error): void => {
      broken ??= error;
    };
    client.on('error', onLost);
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      this.#answered();
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: unknown) => {
        broken = rollbackError as Error;
      });
      throw this.#fault(error);
    } finally {
      client.off('error', onLost);
      // A connection lost, or whose rollback failed, is in an unknown state: it is closed, not reused.
      client.release(broken);
    }
  }

  /** Notes that the database answered (it is back, if it was away). */
  #answered(): void {
    if (this.#available) return;
    this.#available = true;
    this.#onAvailability(true, '');
  }

  /** A failure as the request should see it: 503 when the database is away, the error itself otherwise. */
  #fault(error: unknown): unknown {
    if (!isUnavailable(error)) return error;
    if (this.#available) {
      this.#available = false;
      this.#onAvailability(false, (error as Error).message);
    }
    return unavailableError();
  }
}
