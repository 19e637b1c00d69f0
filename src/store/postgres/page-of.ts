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

/** The statuses a page's items may have: an item's status is the constant, compared in place, never a copy. */
const KNOWN_STATUSES: readonly string[] = [...PET_STATUSES, ...ORDER_STATUSES];

/**
 * Reads the fields of one item of a page's text (pagesQuery's `field,field,...,json`), left to right,
 * without a copy of what it does not keep: numbers from their digits, statuses as the constants.
 */
export class ItemFields {
  #text = '';
  #at = 0;

  /** Starts reading at `at` of `text`. */
  reset(text: string, at: number): void {
    this.#text = text;
    this.#at = at;
  }

  /** A field of decimal digits. */
  number(): number {
    const text = this.#text;
    let at = this.#at;
    let value = 0;
    for (let code = text.charCodeAt(at); code >= 48 && code <= 57; code = text.charCodeAt(++at))
      value = value * 10 + code - 48;
    this.#at = at + 1;
    return value;
  }

  /** A status field, as the constant of that name. */
  status(): string {
    const text = this.#text;
    const comma = text.indexOf(',', this.#at);
    for (const status of KNOWN_STATUSES)
      if (status.length === comma - this.#at && text.startsWith(status, this.#at)) {
        this.#at = comma + 1;
        return status;
      }
    return this.text();
  }

  /** A field of text without a comma. */
  text(): string {
    const comma = this.#text.indexOf(',', this.#at);
    const value = this.#text.slice(this.#at, comma);
    this.#at = comma + 1;
    return value;
  }

  /** The item's JSON: the rest, up to `end`. */
  json(end: number): string {
    return this.#text.slice(this.#at, end);
  }
}

/**
 * A page from its row of pagesQuery: its total, how many items it found (one past the page: more
 * follow), and up to `limit` items from its text, each read by `itemOf` from its fields (its JSON is
 * kept as the text the database sent: a slice, neither a copy nor a parse).
 */
export function pageOfText<T>(
  row: ReadonlyArray<string | null> | undefined,
  limit: number,
  itemOf: (fields: ItemFields, end: number) => T,
): Page<T> {
  const found = Number(row?.[1] ?? 0);
  const text = row?.[2] ?? null;
  const items: T[] = [];
  const fields = new ItemFields();
  let start = 0;
  while (text !== null && start < text.length && items.length < limit) {
    let end = text.indexOf(ITEM_SEPARATOR, start);
    if (end < 0) end = text.length;
    fields.reset(text, start);
    items.push(itemOf(fields, end));
    start = end + 1;
  }
  return { items, more: found > limit, total: Number(row?.[0] ?? 0) };
}
