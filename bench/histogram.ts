// A latency histogram in the style of HdrHistogram: log-linear buckets over whole microseconds, so
// recording is O(1) and memory fixed (3,200 counters) whatever the number of samples, and every
// percentile is within 1/128 (0.8 %) of the true sample. Pure: no clock, no I/O.

/** Sub-buckets per power of two, as a bit count: 2^7 = 128 buckets per octave, a relative error of at most 1/128. */
const SUB_BUCKET_BITS = 7;
const SUB_BUCKETS = 1 << SUB_BUCKET_BITS;
/** Largest value kept, in µs (2^31 − 1 µs is about 36 minutes); anything above counts as this. */
export const MAX_TRACKABLE_US = 2 ** 31 - 1;
/** Bucket count: values below 128 µs exactly, then 128 buckets for each of the 24 octaves above. */
const BUCKET_COUNT = SUB_BUCKETS * (32 - SUB_BUCKET_BITS);

/** The percentiles every report shows (autocannon shows p2.5..p99; the issue asks for these). */
export const REPORTED_PERCENTILES = [50, 90, 99, 99.9] as const;

/** Index of the bucket holding `valueUs` (a whole number from 0 to MAX_TRACKABLE_US). */
export function bucketIndex(valueUs: number): number {
  if (valueUs < SUB_BUCKETS) return valueUs;
  // bitLength − 8 = how far the value must be shifted for its top 8 bits to fall in [128, 255].
  const shift = 32 - Math.clz32(valueUs) - SUB_BUCKET_BITS - 1;
  return shift * SUB_BUCKETS + (valueUs >>> shift);
}

/** The largest value that falls in bucket `index` (what HdrHistogram calls its highest equivalent value). */
export function bucketUpperUs(index: number): number {
  if (index < SUB_BUCKETS) return index;
  const shift = Math.floor(index / SUB_BUCKETS) - 1;
  const top = index - shift * SUB_BUCKETS;
  return (top + 1) * 2 ** shift - 1;
}

/** Summary of a histogram, in milliseconds. */
export interface LatencySummary {
  count: number;
  minMs: number;
  meanMs: number;
  stdevMs: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  p99_9Ms: number;
  maxMs: number;
}

/** A histogram as plain data (see Histogram.snapshot). */
export interface HistogramSnapshot {
  counts: number[];
  count: number;
  minUs: number;
  maxUs: number;
  sumUs: number;
  sumSquaresUs: number;
}

/** Counts of latencies in log-linear buckets of whole microseconds. */
export class Histogram {
  readonly #counts = new Float64Array(BUCKET_COUNT);
  #count = 0;
  #minUs = Number.POSITIVE_INFINITY;
  #maxUs = 0;
  #sumUs = 0;
  #sumSquaresUs = 0;

  /** Records one latency given in milliseconds (fractions kept to the microsecond; negatives count as 0). */
  recordMs(latencyMs: number): void {
    this.recordUs(Math.round(latencyMs * 1000));
  }

  /** Records one latency in whole microseconds. */
  recordUs(valueUs: number): void {
    const value = valueUs > 0 ? Math.min(valueUs, MAX_TRACKABLE_US) : 0;
    this.#counts[bucketIndex(value)]! += 1;
    this.#count += 1;
    if (value < this.#minUs) this.#minUs = value;
    if (value > this.#maxUs) this.#maxUs = value;
    this.#sumUs += value;
    this.#sumSquaresUs += value * value;
  }

  /** Adds every sample of `other` to this one. */
  merge(other: Histogram): void {
    for (let index = 0; index < BUCKET_COUNT; index++) this.#counts[index]! += other.#counts[index]!;
    this.#count += other.#count;
    this.#minUs = Math.min(this.#minUs, other.#minUs);
    this.#maxUs = Math.max(this.#maxUs, other.#maxUs);
    this.#sumUs += other.#sumUs;
    this.#sumSquaresUs += other.#sumSquaresUs;
  }

  /** Every sample, as plain data that can cross a thread (structured clone) and be read back with `fromSnapshot`. */
  snapshot(): HistogramSnapshot {
    return {
      counts: Array.from(this.#counts),
      count: this.#count,
      minUs: this.#minUs,
      maxUs: this.#maxUs,
      sumUs: this.#sumUs,
      sumSquaresUs: this.#sumSquaresUs,
    };
  }

  /** The histogram a `snapshot()` was taken of. */
  static fromSnapshot(snapshot: HistogramSnapshot): Histogram {
    const histogram = new Histogram();
    if (snapshot.counts.length !== BUCKET_COUNT) throw new RangeError('a histogram snapshot of another bucket layout');
    histogram.#counts.set(snapshot.counts);
    histogram.#count = snapshot.count;
    histogram.#minUs = snapshot.minUs;
    histogram.#maxUs = snapshot.maxUs;
    histogram.#sumUs = snapshot.sumUs;
    histogram.#sumSquaresUs = snapshot.sumSquaresUs;
    return histogram;
  }

  get count(): number {
    return this.#count;
  }

  /**
   * The value at percentile `p` (0 to 100) in µs: the upper bound of the bucket holding the sample of
   * rank ceil(p% × count), never above the largest sample. 0 when empty.
   */
  percentileUs(p: number): number {
    if (this.#count === 0) return 0;
    if (p >= 100) return this.#maxUs;
    const rank = Math.max(1, Math.ceil((p / 100) * this.#count));
    let seen = 0;
    for (let index = 0; index < BUCKET_COUNT; index++) {
      seen += this.#counts[index]!;
      if (seen >= rank) return Math.min(bucketUpperUs(index), this.#maxUs);
    }
    return this.#maxUs;
  }

  /** Count, min, mean, standard deviation, the reported percentiles and max, in ms. */
  summary(): LatencySummary {
    const count = this.#count;
    const meanUs = count === 0 ? 0 : this.#sumUs / count;
    const varianceUs = count === 0 ? 0 : Math.max(0, this.#sumSquaresUs / count - meanUs * meanUs);
    const ms = (us: number): number => Math.round(us) / 1000;
    return {
      count,
      minMs: count === 0 ? 0 : ms(this.#minUs),
      meanMs: ms(meanUs),
      stdevMs: ms(Math.sqrt(varianceUs)),
      p50Ms: ms(this.percentileUs(50)),
      p90Ms: ms(this.percentileUs(90)),
      p99Ms: ms(this.percentileUs(99)),
      p99_9Ms: ms(this.percentileUs(99.9)),
      maxMs: ms(this.#maxUs),
    };
  }
}
