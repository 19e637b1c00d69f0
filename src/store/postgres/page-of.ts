// A page of a listing read as rows, one past the page to know whether another follows.
import type { Page } from '../store.js';

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
