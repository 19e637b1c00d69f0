// The new log a compaction builds beside the old one: the snapshot's records, then the batches
// flushed meanwhile, then a full fsync. Written in chunks, so that a large store never needs its whole
// log in one buffer, and in slices of the event loop's time: the snapshot's records are made as they
// are read (a second or more of work at a million pets), and each chunk is written once it is full or
// its slice has lasted SLICE_MS; then it rests (REST_PER_SLICE), so that the API and the deliveries get
// their turns in between and most of the process's time. The journal renames it over the log and syncs
// the directory (journal.ts).

import { encodeRecord } from './log-format.js';
import type { StorageFile, StorageFs } from './storage-fs.js';
import { writeAll } from './storage-fs.js';

/** Bytes gathered before each write of a rewrite: large enough to amortise the calls, small enough to stay out of the way. */
const REWRITE_CHUNK_BYTES = 1 << 20;
/**
 * The longest a compaction works in one turn of the event loop before its chunk is written (the write
 * lets other callbacks run). Making a record takes a few microseconds, so the clock is read only every
 * RECORDS_PER_CLOCK_READ records.
 */
const SLICE_MS = 2;
const RECORDS_PER_CLOCK_READ = 32;
/**
 * After each slice the rewrite rests REST_PER_SLICE times as long as the slice worked (its chunk's write
 * counts as rest), so that it takes at most a quarter of the process's time: a compaction is background
 * work with no deadline, and at 500 creates a second with 10 subscriptions, a rewrite that took what it
 * could (about 40 % of the time for 150 ms) left the deliveries, which needed 65 %, up to 130 ms behind.
 */
const REST_PER_SLICE = 3;
/**
 * While the event loop was busy this share of a rest or more, the rest goes on (up to MAX_REST_MS): the
 * process's other work needs more than three quarters of its time, so even a quarter taken by the
 * rewrite puts it behind. On a machine where the deliveries alone took 75 % of the process, each
 * compaction (190 to 280 ms) left them 60 to 160 ms behind.
 */
const BUSY_REST_SHARE = 0.5;
/** The longest rest after a slice (about a tenth of the time for the rewrite while the loop is busy); a stop waits for it. */
const MAX_REST_MS = 20;

/**
 * Whether a rest that has lasted `restedMs` after a slice that worked `sliceMs` is over, the event loop
 * busy `busyShare` (0 to 1) of it with other work.
 */
export function restIsOver(sliceMs: number, restedMs: number, busyShare: number): boolean {
  if (restedMs >= MAX_REST_MS) return true;
  if (restedMs < sliceMs * REST_PER_SLICE) return false;
  return busyShare < BUSY_REST_SHARE;
}

/** Rests after a slice that worked from `sliceStartMs` to `restFromMs` (performance.now()), as restIsOver says. */
async function rest(sliceStartMs: number, restFromMs: number): Promise<void> {
  const sliceMs = restFromMs - sliceStartMs;
  const loopAtRest = performance.eventLoopUtilization();
  await restUntil(restFromMs, Math.min(sliceMs * REST_PER_SLICE, MAX_REST_MS));
  while (!restIsOver(sliceMs, performance.now() - restFromMs, performance.eventLoopUtilization(loopAtRest).utilization))
    await restUntil(performance.now(), SLICE_MS);
}

/** Resolves once `restMs` have passed since `fromMs` (performance.now()), or in the next turn if they have. */
function restUntil(fromMs: number, restMs: number): Promise<void> {
  const leftMs = fromMs + restMs - performance.now();
  return new Promise((resolve) => (leftMs >= 1 ? setTimeout(resolve, leftMs) : setImmediate(resolve)));
}

/** A temporary log being written; `commit` makes it durable, `abandon` removes it. */
export class TempLog {
  readonly #fs: StorageFs;
  readonly #path: string;
  #file: StorageFile | null;
  /** Bytes written so far. */
  bytes = 0;
  /** Records of the snapshot written by `create`. */
  snapshotRecords = 0;

  private constructor(fs: StorageFs, path: string, file: StorageFile) {
    this.#fs = fs;
    this.#path = path;
    this.#file = file;
  }

  /**
   * Creates (or empties) `path` and writes the records of `payloads`, read a slice at a time across
   * turns of the event loop (so they must not change meanwhile: a frozen copy), calling `checkpoint`
   * between chunks (it may throw to stop).
   */
  static async create(
    fs: StorageFs,
    path: string,
    payloads: Iterable<string>,
    checkpoint: () => void,
  ): Promise<TempLog> {
    const temp = new TempLog(fs, path, await fs.open(path, 'w'));
    try {
      let chunk: string[] = [];
      let chunkLength = 0;
      let sliceStartMs = performance.now();
      for (const payload of payloads) {
        const line = encodeRecord(payload);
        chunk.push(line);
        chunkLength += line.length;
        temp.snapshotRecords++;
        if (
          chunkLength >= REWRITE_CHUNK_BYTES ||
          (chunk.length % RECORDS_PER_CLOCK_READ === 0 && performance.now() - sliceStartMs >= SLICE_MS)
        ) {
          const restFromMs = performance.now();
          await temp.append(Buffer.from(chunk.join('')));
          checkpoint();
          chunk = [];
          chunkLength = 0;
          await rest(sliceStartMs, restFromMs);
          checkpoint();
          sliceStartMs = performance.now();
        }
      }
      if (chunk.length > 0) await temp.append(Buffer.from(chunk.join('')));
    } catch (error) {
      await temp.abandon();
      throw error;
    }
    return temp;
  }

  /** Appends bytes that are already framed records. */
  async append(data: Buffer): Promise<void> {
    if (this.#file === null) throw new Error(`${this.#path} is no longer open`);
    await writeAll(this.#file, data);
    this.bytes += data.length;
  }

  /**
   * Appends framed chunks in writes of up to REWRITE_CHUNK_BYTES each: the batches flushed during a
   * rewrite are many and small (one per group commit), and a write each took 20 to 50 ms for a few hundred.
   */
  async appendChunks(chunks: readonly Buffer[]): Promise<void> {
    for (let from = 0; from < chunks.length;) {
      let to = from;
      let length = 0;
      while (to < chunks.length && (to === from || length + (chunks[to] as Buffer).length <= REWRITE_CHUNK_BYTES))
        length += (chunks[to++] as Buffer).length;
      await this.append(to - from === 1 ? (chunks[from] as Buffer) : Buffer.concat(chunks.slice(from, to), length));
      from = to;
    }
  }

  /** Makes what was written so far durable, so that the sync of `commit` has little left to do. */
  async sync(): Promise<void> {
    if (this.#file === null) throw new Error(`${this.#path} is no longer open`);
    await this.#file.datasync();
  }

  /** fsyncs and closes the file: it is complete on disk before it may replace the log. */
  async commit(): Promise<void> {
    if (this.#file === null) throw new Error(`${this.#path} is no longer open`);
    const file = this.#file;
    await file.sync();
    this.#file = null;
    await file.close();
  }

  /** Closes and removes the file, ignoring failures: a leftover is removed at the next open anyway. */
  async abandon(): Promise<void> {
    const file = this.#file;
    this.#file = null;
    await file?.close().catch(() => {});
    await this.#fs.unlink(this.#path).catch(() => {});
  }
}
