// A binary min-heap of (time, event position) pairs, in two growing columns: the order in which a
// subscription's pending deliveries fall due, the earliest on top and, at the same time, the oldest
// event first. 16 bytes an entry and no object each. Entries are never updated in place: a delivery
// that changes is pushed again, and the queue that owns the heap drops stale entries as they surface.
import { withRoom } from './typed-columns.js';

export class DueHeap {
  #times = new Float64Array(16);
  #seqs = new Float64Array(16);
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** The earliest time on the heap; only while it is not empty. */
  get topTime(): number {
    return this.#times[0] as number;
  }

  /** The event position of the earliest entry; only while the heap is not empty. */
  get topSeq(): number {
    return this.#seqs[0] as number;
  }

  push(time: number, seq: number): void {
    if (this.#size === this.#times.length) {
      this.#times = withRoom(this.#times, this.#size + 1);
      this.#seqs = withRoom(this.#seqs, this.#size + 1);
    }
    let at = this.#size++;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!this.#before(time, seq, parent)) break;
      this.#times[at] = this.#times[parent] as number;
      this.#seqs[at] = this.#seqs[parent] as number;
      at = parent;
    }
    this.#times[at] = time;
    this.#seqs[at] = seq;
  }

  /** Removes the earliest entry. */
  pop(): void {
    if (this.#size === 0) return;
    const size = --this.#size;
    if (size === 0) return;
    const time = this.#times[size] as number;
    const seq = this.#seqs[size] as number;
    let at = 0;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= size) break;
      const right = child + 1;
      if (right < size && this.#before(this.#times[right] as number, this.#seqs[right] as number, child)) child = right;
      const childTime = this.#times[child] as number;
      const childSeq = this.#seqs[child] as number;
      if (time < childTime || (time === childTime && seq <= childSeq)) break;
      this.#times[at] = childTime;
      this.#seqs[at] = childSeq;
      at = child;
    }
    this.#times[at] = time;
    this.#seqs[at] = seq;
  }

  clear(): void {
    this.#size = 0;
    this.#times = new Float64Array(16);
    this.#seqs = new Float64Array(16);
  }

  /** Whether (time, seq) comes before the entry at `index`. */
  #before(time: number, seq: number, index: number): boolean {
    const other = this.#times[index] as number;
    return time < other || (time === other && seq < (this.#seqs[index] as number));
  }
}
