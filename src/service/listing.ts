// Listing in pages, the same for every collection: a page starts right after the last id of the page
// before it (its cursor's), in ascending id order, optionally of one status; the next page's cursor is
// issued only while more items follow; the total counts every item the filter matches.
import { type Awaitable, mapAwaitable } from '../core/awaitable.js';
import { DEFAULT_PAGE_SIZE } from '../core/schemas.js';
import type { Page, PageRequest } from '../store/store.js';
import type { CursorCodec } from './cursor-codec.js';

/** A checked page request as a client makes it: a filter, a size and the previous page's cursor. */
export interface ListQuery<S extends string> {
  status?: S | undefined;
  /** 1 to MAX_PAGE_SIZE; DEFAULT_PAGE_SIZE when absent (src/core/schemas.ts). */
  limit?: number | undefined;
  cursor?: string | undefined;
}

/** One page as the service answers it. */
export interface Listing<T, S extends string> {
  items: T[];
  /** How many items match the filter in all. */
  total: number;
  /** The page size in force (the query's, or the default). */
  limit: number;
  status: S | undefined;
  /** The cursor of the next page; undefined on the last page. */
  next: string | undefined;
}

/**
 * One page of `listing` ("pets", "orders": the name cursors are bound to) read with `readPage`, at
 * once when the store answers at once. A cursor issued for another listing or filter is `invalid_cursor`.
 */
export function listPage<T extends { id: number }, S extends string>(
  listing: string,
  cursors: CursorCodec,
  query: ListQuery<S>,
  readPage: (request: PageRequest<S>) => Awaitable<Page<T>>,
): Awaitable<Listing<T, S>> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const filter = query.status ?? '';
  const afterId = query.cursor === undefined ? 0 : cursors.read(query.cursor, listing, filter);
  return mapAwaitable(readPage({ status: query.status, afterId, limit }), (page) => {
    const last = page.items[page.items.length - 1];
    const next = page.more && last !== undefined ? cursors.issue(listing, filter, last.id) : undefined;
    return { items: page.items, total: page.total, limit, status: query.status, next };
  });
}
