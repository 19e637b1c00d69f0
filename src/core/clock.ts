// Time as the service sees it, passed in so tests can move it without sleeping or patching Date.now.

/** A source of wall-clock and monotonic time, both in milliseconds. */
export interface Clock {
  /** Wall-clock time: milliseconds since the Unix epoch. Used for headers and dates only. */
  now(): number;
  /** Monotonic time: milliseconds from an arbitrary origin, never stepping back. Used for durations. */
  monotonic(): number;
}

/** The real clock: `Date.now()` and `performance.now()`. */
export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
};

/** A clock that moves only when told to; for tests. */
export class ManualClock implements Clock {
  #wallMs: number;
  #monotonicMs = 0;

  constructor(wallMs: number) {
    this.#wallMs = wallMs;
  }

  now(): number {
    return this.#wallMs;
  }

  monotonic(): number {
    return this.#monotonicMs;
  }

  /** Moves both clocks forward by `ms`. */
  advance(ms: number): void {
    this.#wallMs += ms;
    this.#monotonicMs += ms;
  }

  /** Steps the wall clock alone, as an NTP correction or an operator would; monotonic time is untouched. */
  stepWall(ms: number): void {
    this.#wallMs += ms;
  }
}
