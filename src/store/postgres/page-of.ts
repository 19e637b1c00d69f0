// A page of a listing read from the database: as rows, one past the page to know whether another
// follows; or as one text of items (pagesQuery), cut into items here without parsing their JSON.
import { ORDER_STATUSES } from '../../orders/schemas.js';
import { PET_STATUSES } from '../../pets/schemas.js';
import type { Page } from '../store.js';
import { ITEM_SEPARATOR } from './store-statements.js';

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

/** The status texts by their own value, so that an item read from a page shares the constant rather than a copy. */
const KNOWN_STATUSES = new Map<string, string>([...PET_STATUSES, ...ORDER_STATUSES].map((status) => [status, status]));

/**
 * A page from its row of pagesQuery: its total, how many items it found (one past the page: more follow),
 * and up to `limit` items from its text, each cut into its `fieldCount` fields and its JSON, which is
 * kept as the text the database sent (a slice: neither a copy nor a parse).
 */
export function pageOfText<T>(
  row: ReadonlyArray<string | null> | undefined,
  limit: number,
  fieldCount: number,
  itemOf: (fields: readonly string[], json: string) => T,
): Page<T> {
  const found = Number(row?.[1] ?? 0);
  const text = row?.[2] ?? null;
  const items: T[] = [];
  let start = 0;
  while (text !== null && start < text.length && items.length < limit) {
    let end = text.indexOf(ITEM_SEPARATOR, start);
    if (end < 0) end = text.length;
    const fields: string[] = [];
    let at = start;
    for (let field = 0; field < fieldCount; field++) {
      const comma = text.indexOf(',', at);
      const value = text.slice(at, comma);
      fields.push(KNOWN_STATUSES.get(value) ?? value);
      at = comma + 1;
    }
    items.push(itemOf(fields, text.slice(at, end)));
    start = end + 1;
  }
  return { items, more: found > limit, total: Number(row?.[0] ?? 0) };
}
