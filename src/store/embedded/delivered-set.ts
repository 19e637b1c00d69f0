// Which events were delivered to one subscription (an attempt got a 2xx): what `recover` leaves out.
// One bit per retained event position, from the oldest delivered one kept: a million events cost
// 125 KB a subscription at most. Forgotten events are cut off the front.

/** A set of event positions, as bits. */
export class DeliveredSet {
  /** The position of bit 0 of byte 0 (a multiple of 8). */
  #base = 0;
  #bits = new Uint8Array(0);

  /** True when nothing was ever added or everything was forgotten (bits may linger: an estimate). */
  get isEmpty(): boolean {
    return this.#bits.length === 0;
  }

  add(seq: number): void {
    if (this.#bits.length === 0) this.#base = seq - (seq % 8);
    if (seq < this.#base) this.#grow(seq - (seq % 8), this.#bits.length);
    const bit = seq - this.#base;
    if (bit >> 3 >= this.#bits.length) this.#grow(this.#base, Math.max((bit >> 3) + 1, this.#bits.length * 2));
    this.#bits[bit >> 3] = (this.#bits[bit >> 3] as number) | (1 << (bit & 7));
  }

  has(seq: number): boolean {
    const bit = seq - this.#base;
    if (bit < 0 || bit >> 3 >= this.#bits.length) return false;
    return ((this.#bits[bit >> 3] as number) & (1 << (bit & 7))) !== 0;
  }

  /** Forgets every position before `seq`. */
  dropBefore(seq: number): void {
    const bytes = Math.min(Math.max(0, (seq - this.#base) >> 3), this.#bits.length);
    if (bytes > 0) {
      this.#bits = this.#bits.slice(bytes);
      this.#base += bytes * 8;
    }
    const bit = seq - this.#base;
    if (bit > 0 && this.#bits.length > 0) this.#bits[0] = (this.#bits[0] as number) & ~((1 << bit) - 1);
  }

  /** The positions held, as ascending runs [first, last]. */
  ranges(): Array<[number, number]> {
    const ranges: Array<[number, number]> = [];
    let start = -1;
    const end = this.#base + this.#bits.length * 8;
    for (let seq = this.#base; seq <= end; seq++) {
      const held = seq < end && this.has(seq);
      if (held && start === -1) start = seq;
      if (!held && start !== -1) {
        ranges.push([start, seq - 1]);
        start = -1;
      }
    }
    return ranges;
  }

  /** A copy that later changes of this set do not reach (a compaction's snapshot reads it across turns). */
  copy(): DeliveredSet {
    const copy = new DeliveredSet();
    copy.#base = this.#base;
    copy.#bits = this.#bits.slice();
    return copy;
  }

  /** Moves bit 0 to `base` and makes room for `bytes` bytes. */
  #grow(base: number, bytes: number): void {
    const shift = (this.#base - base) >> 3;
    const grown = new Uint8Array(Math.max(bytes, this.#bits.length + shift));
    grown.set(this.#bits, shift);
    this.#bits = grown;
    this.#base = base;
  }
}
