// Fixed arrival rate (--rate) without coordinated omission: request i is due at
// start + i × (1000 / rate) ms whatever happened to the ones before it, and its latency is measured
// from that intended time, not from when a free connection finally sent it. A server that stalls
// for a second then shows a second of latency on every request that was due meanwhile (as wrk2 and
// HdrHistogram's authors describe), instead of one slow sample among idle senders.
// Pure schedule arithmetic: the caller (load.ts) passes the clock readings in.

/** The schedule of a run at a fixed rate. */
export class RateSchedule {
  readonly ratePerSecond: number;
  readonly startMs: number;
  readonly intervalMs: number;

  constructor(ratePerSecond: number, startMs: number) {
    if (!(Number.isFinite(ratePerSecond) && ratePerSecond > 0))
      throw new RangeError(`rate must be a positive number of requests per second, not ${ratePerSecond}`);
    this.ratePerSecond = ratePerSecond;
    this.startMs = startMs;
    this.intervalMs = 1000 / ratePerSecond;
  }

  /** When request `index` (from 0) is due, in the clock of `startMs`. */
  intendedMs(index: number): number {
    // Multiplying (not adding the interval up) keeps float error from drifting over millions of requests.
    return this.startMs + index * this.intervalMs;
  }

  /** How long to wait before sending request `index` at `nowMs`; 0 when it is due or late. */
  waitMs(index: number, nowMs: number): number {
    const wait = this.intendedMs(index) - nowMs;
    return Math.max(wait, 0);
  }

  /** How many requests fall due within `durationMs` of the start (those with intended time < start + duration). */
  countWithin(durationMs: number): number {
    return Math.max(0, Math.ceil((durationMs * this.ratePerSecond) / 1000 - 1e-9));
  }

  /**
   * The instant the latency of request `index`, sent at `sentMs`, is measured from: its intended time
   * when it went out late (a stalled server or busy senders held it back), so the wait counts (no
   * coordinated omission); the send itself when a timer let it go a little early.
   */
  latencyStartMs(index: number, sentMs: number): number {
    const intended = this.intendedMs(index);
    return Math.min(sentMs, intended);
  }
}

/** The rate for the "half of peak" latency check: half the measured peak, at least 1 request per second. */
export function halfOfPeakRate(peakRequestsPerSecond: number): number {
  return Math.max(1, Math.floor(peakRequestsPerSecond / 2));
}
