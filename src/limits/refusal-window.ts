// Counts a key's refusals for the temporary ban of README "Rate limits": "the 31st refusal of a key within
// 60 s ... starts a ban". It keeps the times of the last N+1 refusals in a ring (N =
// refusalsBeforeBan, 30 by default): the (N+1)th refusal within the window is recognised exactly
// when the oldest of those N+1 times is less than a window old.
//
// Why a ring and not a fixed-window counter: a fixed window resets at its boundary, so 30 refusals
// just before it and 30 just after (60 within 60 s) would never ban; the contract says "within 60 s",
// a sliding window. The ring is exact, costs O(1) per refusal, and its memory is fixed at N+1
// numbers (248 bytes by default), allocated only for a key that has been refused at least once.

/** The times (monotonic ms) of a key's last refusals, enough to tell when one more starts a ban. */
export class RefusalWindow {
  readonly #timesMs: Float64Array;
  #next = 0;
  #count = 0;

  /** `refusalsBeforeBan` refusals within a window are tolerated; the next one starts a ban. */
  constructor(refusalsBeforeBan: number) {
    this.#timesMs = new Float64Array(refusalsBeforeBan + 1);
  }

  /** Records a refusal at `nowMs`; true when it is the (N+1)th within `windowMs`, so a ban starts. */
  record(nowMs: number, windowMs: number): boolean {
    const size = this.#timesMs.length;
    this.#timesMs[this.#next] = nowMs;
    this.#next = (this.#next + 1) % size;
    if (this.#count < size) this.#count += 1;
    if (this.#count < size) return false;
    // The ring is full: the slot written next holds the oldest of the last N+1 refusals.
    const oldestMs = this.#timesMs[this.#next] ?? nowMs;
    return nowMs - oldestMs < windowMs;
  }

  /** Forgets every refusal (after a ban, counting starts afresh). */
  clear(): void {
    this.#next = 0;
    this.#count = 0;
  }
}
