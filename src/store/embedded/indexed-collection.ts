// A collection indexed for paging. Ids are dense (handed out 1, 2, 3, ...), so items live in an array
// by id (4 bytes a slot, where a Map entry costs about 30) and listing everything walks it from the
// cursor; each status has an ascending id index, so a filtered page is a binary search and a slice.
// Either way a page costs O(log n + limit), whatever the page number. Items carry their JSON,
// serialised once, so a list answer joins ready strings.
import type { OrderStatus } from '../../orders/schemas.js';
import { ORDER_STATUSES } from '../../orders/schemas.js';
import type { StoredOrder } from '../../orders/stored-order.js';
import type { PetStatus } from '../../pets/schemas.js';
import { PET_STATUSES } from '../../pets/schemas.js';
import type { StoredPet } from '../../pets/stored-pet.js';
import type { Page } from '../store.js';
import { firstAfter, insertId, removeId } from './sorted-ids.js';

/**
 * The most ids a record may skip past the highest one before it. Ids are handed out one at a time, and
 * only a write that failed (each uses up its id) leaves a gap, so a jump past tens of millions is a
 * record no store wrote; filling it would take gigabytes (an array slot an id), and V8 ends the
 * process past about a hundred million slots. Such a record is refused as damage, named.
 */
export const MAX_ID_GAP = 2 ** 26;

/** Why a record with `id` cannot be placed after `highest`, or undefined when it can. */
export function idGapProblem(what: string, id: number, highest: number): string | undefined {
  return id - highest > MAX_ID_GAP
    ? `its ${what} ${id} is more than ${MAX_ID_GAP} past the highest before it (${highest}), ` +
        'though they are handed out one at a time'
    : undefined;
}

/** What the collection holds: an id, a status and the item's JSON text. */
export interface Indexed<S extends string> {
  readonly id: number;
  readonly status: S;
  readonly json: string;
}

/** Items by id, with an ascending id index per status. */
export class IndexedCollection<T extends Indexed<S>, S extends string> {
  /** Slot `id` holds the item with that id; slot 0 and ids never stored (failed writes) stay empty. */
  readonly #byId: Array<T | undefined> = [undefined];
  readonly #byStatus = new Map<S, number[]>();
  #size = 0;
  #nextId = 1;

  constructor(statuses: readonly S[]) {
    for (const status of statuses) this.#byStatus.set(status, []);
  }

  /** The item with this id, if any. */
  get(id: number): T | undefined {
    return id < this.#byId.length ? this.#byId[id] : undefined;
  }

  /** Up to `limit` items with ids above `afterId`, in ascending id order, optionally of one status. */
  page(status: S | undefined, afterId: number, limit: number): Page<T> {
    if (status !== undefined) {
      const ids = this.#statusIndex(status);
      const start = firstAfter(ids, afterId);
      const end = Math.min(start + limit, ids.length);
      const items = new Array<T>(end - start);
      for (let index = start; index < end; index++) items[index - start] = this.#byId[ids[index] as number] as T;
      return { items, more: end < ids.length, total: ids.length };
    }
    const items: T[] = [];
    const slots = this.#byId;
    let id = Math.max(afterId, 0) + 1;
    for (; id < slots.length && items.length < limit; id++) {
      const item = slots[id];
      if (item !== undefined) items.push(item);
    }
    // Empty slots are ids whose write failed: rare, so looking past them for one more item is cheap.
    while (id < slots.length && slots[id] === undefined) id++;
    return { items, more: id < slots.length, total: this.#size };
  }

  /** How many items there are, in all or of one status. */
  count(status?: S): number {
    return status === undefined ? this.#size : this.#statusIndex(status).length;
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

  /** Puts an item into the array and the indexes, replacing an older version of it. */
  put(item: T): void {
    const slots = this.#byId;
    const gap = idGapProblem('id', item.id, slots.length - 1);
    if (gap !== undefined) throw new Error(gap);
    // Fill the gap of ids that were never stored, so the array stays dense (no dictionary mode).
    while (slots.length <= item.id) slots.push(undefined);
    const previous = slots[item.id];
    slots[item.id] = item;
    this.noteId(item.id);
    if (previous === undefined) {
      this.#size++;
    } else if (previous.status !== item.status) {
      removeId(this.#statusIndex(previous.status), item.id);
    } else {
      return;
    }
    insertId(this.#statusIndex(item.status), item.id);
  }

  /** Every item in ascending id order. */
  *values(): Generator<T> {
    for (const item of this.#byId) if (item !== undefined) yield item;
  }

  /**
   * Every item as it is now, in ascending id order, however the collection changes later: items are
   * immutable (a change puts a new one), so copying the slots (a memory copy) is enough.
   */
  frozenValues(): Iterable<T> {
    const slots = this.#byId.slice();
    return (function* items() {
      for (const item of slots) if (item !== undefined) yield item;
    })();
  }

  #statusIndex(status: S): number[] {
    const ids = this.#byStatus.get(status);
    if (ids === undefined) throw new TypeError(`unknown status ${JSON.stringify(status)}`);
    return ids;
  }
}

/** Every pet, by id and by status. */
export class PetCollection extends IndexedCollection<StoredPet, PetStatus> {
  constructor() {
    super(PET_STATUSES);
  }
}

/** Every order, by id and by status. */
export class OrderCollection extends IndexedCollection<StoredOrder, OrderStatus> {
  constructor() {
    super(ORDER_STATUSES);
  }
}
