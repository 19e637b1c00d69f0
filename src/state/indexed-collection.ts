// A collection indexed for paging: a map by id plus an ascending id index for the whole set and one
// per status, so a page is a binary search from the cursor and a slice (O(log n + limit), whatever
// the page number). Items carry their JSON, serialised once, so a list answer joins ready strings.
import { firstAfter, insertId, removeId } from './sorted-ids.js';

/** What the collection holds: an id, a status and the item's JSON text. */
export interface Indexed<S extends string> {
  readonly id: number;
  readonly status: S;
  readonly json: string;
}

/** One page of a listing. */
export interface Page<T> {
  items: T[];
  /** True when more items match after the last one of this page. */
  more: boolean;
  /** How many items match the filter in all. */
  total: number;
}

/** Items by id, with ascending id indexes for all of them and per status. */
export class IndexedCollection<T extends Indexed<S>, S extends string> {
  readonly #byId = new Map<number, T>();
  readonly #all: number[] = [];
  readonly #byStatus = new Map<S, number[]>();
  #nextId = 1;

  constructor(statuses: readonly S[]) {
    for (const status of statuses) this.#byStatus.set(status, []);
  }

  /** The item with this id, if any. */
  get(id: number): T | undefined {
    return this.#byId.get(id);
  }

  /** Up to `limit` items with ids above `afterId`, in ascending id order, optionally of one status. */
  page(status: S | undefined, afterId: number, limit: number): Page<T> {
    const ids = status === undefined ? this.#all : this.#statusIndex(status);
    const start = firstAfter(ids, afterId);
    const end = Math.min(start + limit, ids.length);
    const items = new Array<T>(end - start);
    for (let index = start; index < end; index++) items[index - start] = this.#byId.get(ids[index] as number) as T;
    return { items, more: end < ids.length, total: ids.length };
  }

  /** How many items there are, in all or of one status. */
  count(status?: S): number {
    return status === undefined ? this.#all.length : this.#statusIndex(status).length;
  }

  /** Hands out the next id; it is never handed out again, even if the item is never stored. */
  takeId(): number {
    return this.#nextId++;
  }

  /** The id `takeId` hands out next. */
  get nextId(): number {
    return this.#nextId;
  }

  /** Makes sure ids continue after `id` (also for records that were torn or never made visible). */
  noteId(id: number): void {
    if (id >= this.#nextId) this.#nextId = id + 1;
  }

  /** Puts an item into the map and the indexes, replacing an older version of it. */
  put(item: T): void {
    const previous = this.#byId.get(item.id);
    this.#byId.set(item.id, item);
    this.noteId(item.id);
    if (previous === undefined) {
      insertId(this.#all, item.id);
    } else if (previous.status !== item.status) {
      removeId(this.#statusIndex(previous.status), item.id);
    } else {
      return;
    }
    insertId(this.#statusIndex(item.status), item.id);
  }

  /** Every item in ascending id order. */
  *values(): Generator<T> {
    for (const id of this.#all) yield this.#byId.get(id) as T;
  }

  #statusIndex(status: S): number[] {
    const ids = this.#byStatus.get(status);
    if (ids === undefined) throw new TypeError(`unknown status ${JSON.stringify(status)}`);
    return ids;
  }
}
