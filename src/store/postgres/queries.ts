// Running statements of the webhook store on the pool: one statement, a transaction, and a page read
// from rows. A failure that means the database is away becomes the 503 of faults.ts.
import type { Pool, PoolClient, QueryConfig, QueryResultRow } from 'pg';
import type { Page } from '../store.js';
import { orUnavailable } from './faults.js';

/** The rows of one statement, on any connection of the pool. */
export function rowsOf<R extends QueryResultRow>(pool: Pool, config: QueryConfig): Promise<R[]> {
  return orUnavailable(async () => (await pool.query<R>(config)).rows);
}

/** Runs `work` in a transaction on one connection; commits when it resolves, rolls back when it throws. */
export function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  return orUnavailable(async () => {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: unknown) => {
        broken = rollbackError as Error;
      });
      throw error;
    } finally {
      // A connection whose rollback failed is in an unknown state: it is closed, not reused.
      client.release(broken);
    }
  });
}

/**
 * A page of up to `limit` items from rows read one past it, each with the listing's total (a LEFT
 * JOIN gives one row whose item is all nulls when nothing matches: `itemOf` answers undefined for it).
 */
export function pageOf<R extends { total: string }, T>(
  rows: readonly R[],
  limit: number,
  itemOf: (row: R) => T | undefined,
): Page<T> {
  const items: T[] = [];
  let found = 0;
  for (const row of rows) {
    const item = itemOf(row);
    if (item === undefined) continue;
    found++;
    if (items.length < limit) items.push(item);
  }
  return { items, more: found > limit, total: Number(rows[0]?.total ?? 0) };
}
