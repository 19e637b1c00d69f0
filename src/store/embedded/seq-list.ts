// An ascending list of positions (event seqs) in a typed array: the index of one event type. Events are
// recorded in the order of their positions, so adding is an append; the rare out-of-order add (a
// compacted log replays pets before the events of orders) only marks the list for one sort before its
// next read. Forgetting a prefix (retention) moves a start offset; the space is reclaimed in bulk.
import { withRoom } from './typed-columns.js';

/** Prefix slots kept before they are reclaimed: reclaiming copies the list, so it waits for many. */
const RECLAIM_MIN_SLOTS = 4096;

/** Ascending positions with binary search. */
export class SeqList {
  #seqs = new Float64Array(16);
  #start = 0;
  #end = 0;
  #sorted = true;

  /** How many positions the list holds. */
  get length(): number {
    return this.#end - this.#start;
  }

  add(seq: number): void {
    const end = this.#end;
    if (end === this.#seqs.length) this.#seqs = withRoom(this.#seqs, end + 1);
    if (end > this.#start && seq < (this.#seqs[end - 1] as number)) this.#sorted = false;
    this.#seqs[end] = seq;
    this.#end = end + 1;
  }

  /** The position at `index` (0 is the smallest). */
  at(index: number): number {
    this.#sort();
    return this.#seqs[this.#start + index] as number;
  }

  /** The index of the first position at or after `seq` (`length` when there is none). */
  indexFrom(seq: number): number {
    this.#sort();
    let low = this.#start;
    let high = this.#end;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.#seqs[middle] as number) < seq) low = middle + 1;
      else high = middle;
    }
    return low - this.#start;
  }

  /** The index of the first position whose `key` is at least `min`, `key` growing with the position. */
  indexWhere(key: (seq: number) => number, min: number): number {
    this.#sort();
    let low = this.#start;
    let high = this.#end;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (key(this.#seqs[middle] as number) < min) low = middle + 1;
      else high = middle;
    }
    return low - this.#start;
  }

  /** Forgets every position before `seq`. */
  dropBefore(seq: number): void {
    this.#start += this.indexFrom(seq);
    if (this.#start >= RECLAIM_MIN_SLOTS && this.#start * 2 >= this.#end) {
      this.#seqs.copyWithin(0, this.#start, this.#end);
      this.#end -= this.#start;
      this.#start = 0;
    }
  }

  /** A copy that later changes of this list do not reach (a compaction's snapshot reads it across turns). */
  copy(): SeqList {
    const copy = new SeqList();
    copy.#seqs = this.#seqs.slice(this.#start, this.#end);
    copy.#end = this.#end - this.#start;
    copy.#sorted = this.#sorted;
    return copy;
  }

  #sort(): void {
    if (this.#sorted) return;
    this.#seqs.subarray(this.#start, this.#end).sort();
    this.#sorted = true;
  }
}
