// The one writer of the append-only log. Appends queue up; a single worker takes everything
// queued, writes it with one looped write that is also its datasync under 'always' (the log is opened
// with O_DSYNC: group commit in one call), then starts the next batch's write before it settles this
// one, so that the disk works on the next batch while the event loop answers for this one; when few
// appends are queued at that point, it settles first and waits for the event loop to read the sockets
// once more, so that the writes of the clients just answered join the next batch. Failures never leave
// half a batch visible:
// - a write refused for room (disk full, quota, file too large) is cut back off the file (truncate +
//   datasync) and only that batch gets the error;
// - a failed datasync, or under 'always' a write failing for any other reason (its sync half may be
//   what failed), is never retried and trusted (the PostgreSQL "fsyncgate" lesson): the journal turns
//   read-only, reopens the file and verifies it before it takes writes again.
// Compaction rewrites the log beside it and renames it into place while appends go on: the snapshot
// is fixed at one position of the log, written in slices across turns of the event loop, and followed
// by every batch flushed after that position.
// A deferred append (appendDeferred) starts no write of its own: it joins the next write another append
// starts, or at the latest one DEFER_MS after it was queued. It is written and synced like any other
// before it resolves; it only waits for company, so that records nobody waits on (the outcomes of
// webhook deliveries) share the synced writes of those somebody does, instead of adding their own.

import { errorCode, StorageUnavailableError, unavailable } from './errors.js';
import { encodeRecord } from './log-format.js';
import { TempLog } from './log-rewrite.js';
import { reopenVerified } from './reopen-log.js';
import type { OpenOptions, StorageFile, StorageFs } from './storage-fs.js';
import { writeAll } from './storage-fs.js';

/**
 * When an append counts as done, as Redis's `appendfsync`: `always` after its datasync; `interval`
 * after its write, with a datasync every `intervalMs` (a power cut may lose that last interval);
 * `never` after its write (the kernel has the bytes: they survive a crash of the process, not of the machine).
 */
export type Durability = 'always' | 'interval' | 'never';

interface Pending {
  line: string;
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * The longest a deferred append waits for another to share a write with: longer than a synced write
 * takes (about 1 to 3 ms on an SSD), so that under load every write finds company, and short enough
 * that the outcome of a delivery is recorded without a wait anyone notices when nothing else is written.
 */
export const DEFER_MS = 10;

/** Resolves a flushed batch's appends; called once the next batch's write has been started. */
type Settle = () => void;

/**
 * Resolves once the event loop has polled for I/O again (without blocking: an immediate is pending)
 * and what arrived on the sockets meanwhile has been handled. An immediate set now runs right after the
 * current poll phase; one set from there runs after the next poll, but before the requests read in that
 * poll are served: the HTTP dispatcher serves them together in an immediate of its own, set while they
 * were read, so after those already waiting. The third immediate runs after them, once their appends
 * are queued.
 */
function afterNextPoll(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(() => setImmediate(resolve))));
}

/** Write failures that say only that the bytes did not fit: nothing was synced or lost, so cutting them off is enough. */
const NO_ROOM_CODES = new Set(['ENOSPC', 'EDQUOT', 'EFBIG']);

/** What openJournal hands the journal once the log has been replayed. */
export interface JournalState {
  fs: StorageFs;
  dir: string;
  path: string;
  tempPath: string;
  file: StorageFile;
  bytes: number;
  records: number;
  durability: Durability;
  intervalMs: number;
  warn: (message: string) => void;
  releaseLock: () => Promise<void>;
}

/** What the journal reports as it works, for metrics: each fsync and each compaction. */
export interface JournalListener {
  /** An fsync took `seconds`, making `records` records durable (the group that shared it). */
  synced(seconds: number, records: number): void;
  compacted(): void;
}

/** The append-only log of one data directory; made by openJournal. */
export class Journal {
  /** Told of each fsync and compaction; set by whoever watches (metrics), none by default. */
  listener: JournalListener | undefined;
  /** Records written since the last fsync, under interval and never: the group the next fsync makes durable. */
  #unsyncedRecords = 0;
  readonly #config: Omit<JournalState, 'file' | 'bytes' | 'records'>;
  readonly #timer: NodeJS.Timeout | undefined;
  #file: StorageFile | null;
  #bytes: number;
  #records: number;
  #queue: Pending[] = [];
  /** Appends queued that are not deferred: a flush starts only for one of them, or when DEFER_MS passed. */
  #urgentQueued = 0;
  /** Set when the oldest deferred append has waited DEFER_MS (or the journal closes): flush what is queued. */
  #deferDue = false;
  #deferTimer: NodeJS.Timeout | undefined;
  /** How the log is opened: under 'always', each write is its own datasync. */
  readonly #openOptions: OpenOptions;
  #worker: Promise<void> | null = null;
  /** Set while compaction swaps the files: appends queue up but are not flushed. */
  #paused = false;
  /** The failure that made the journal read-only, until the log is verified again. */
  #failure: StorageUnavailableError | null = null;
  #closing: Promise<void> | null = null;
  #unsynced = false;
  #syncDue = false;
  /** Batches flushed since the snapshot of the compaction under way, which the new log must also hold. */
  #sinceSnapshot: { chunks: Buffer[]; records: number } | null = null;
  #compaction: Promise<void> | null = null;

  /** Use openJournal. */
  constructor(state: JournalState) {
    const { file, bytes, records, ...config } = state;
    this.#config = config;
    this.#file = file;
    this.#bytes = bytes;
    this.#records = records;
    this.#openOptions = { syncWrites: state.durability === 'always' };
    if (state.durability === 'interval') {
      this.#timer = setInterval(() => {
        this.#syncDue = true;
        this.#kick();
      }, state.intervalMs);
      // The timer must not keep a process alive that has nothing else to do.
      this.#timer.unref();
    }
  }

  /** False while the journal refuses writes: after a failed fsync until the log is verified, or once closing. */
  get writable(): boolean {
    return this.#failure === null && this.#closing === null;
  }

  /** The log file. */
  get path(): string {
    return this.#config.path;
  }

  /** Byte length and count of the intact records on disk. */
  get stats(): { bytes: number; records: number } {
    return { bytes: this.#bytes, records: this.#records };
  }

  /** Queues one record (a JSON text without newline); resolves once written (and datasynced under 'always'). */
  append(payload: string): Promise<void> {
    return this.#enqueue(payload, false);
  }

  /**
   * As `append`, but starts no write of its own: the record joins the next write that an append starts,
   * or is written DEFER_MS after it was queued if none does. Resolves once written (and datasynced under
   * 'always'), as `append` does; records keep the order in which they were queued either way.
   */
  appendDeferred(payload: string): Promise<void> {
    return this.#enqueue(payload, true);
  }

  #enqueue(payload: string, deferred: boolean): Promise<void> {
    let line: string;
    try {
      line = encodeRecord(payload);
    } catch (error) {
      return Promise.reject(error);
    }
    if (!this.writable) return Promise.reject(this.#refusal());
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ line, resolve, reject });
      if (!deferred) {
        this.#urgentQueued += 1;
        this.#kick();
      } else {
        this.#deferTimer ??= setTimeout(() => {
          this.#deferTimer = undefined;
          this.#deferDue = true;
          this.#kick();
        }, DEFER_MS);
      }
    });
  }

  /** Resolves once no flush, fsync or recovery is under way (e.g. after a failed fsync, until `writable` is settled). */
  async idle(): Promise<void> {
    while (this.#worker !== null) await this.#worker;
  }

  /**
   * Rewrites the log to `snapshot()`'s payloads plus every record appended after it was called.
   * `snapshot` is called in one turn of the event loop, with every record flushed so far applied and
   * none flushed after; its payloads are read over many turns while appends go on, so they must be
   * those of that moment (a frozen copy whose records are made as they are read). Refused once the
   * journal is closed; one asked before a close and stopped by it resolves, the log left as it was.
   */
  compact(snapshot: () => Iterable<string>): Promise<void> {
    if (this.#closing !== null) return Promise.reject(this.#refusal());
    const previous = this.#compaction ?? Promise.resolve();
    const run = previous.catch(() => {}).then(() => this.#compact(snapshot));
    this.#compaction = run;
    const forget = () => {
      if (this.#compaction === run) this.#compaction = null;
    };
    run.then(forget, forget);
    return run;
  }

  /** Flushes and fsyncs what is queued, closes the file and releases the lock. Idempotent; never rejects. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  #refusal(): StorageUnavailableError {
    if (this.#closing !== null)
      return new StorageUnavailableError('ECLOSED', `The journal ${this.#config.path} is closed.`);
    const code = this.#failure?.code ?? 'EIO';
    return new StorageUnavailableError(
      code,
      `The journal ${this.#config.path} is read-only after a failed fsync (${code}).`,
      {
        cause: this.#failure,
      },
    );
  }

  #kick(): void {
    if (this.#worker !== null || this.#paused || this.#file === null) return;
    // #flush settles every append itself; this only keeps a bug from becoming an unhandled rejection.
    this.#worker = this.#work().catch((error: unknown) => {
      this.#turnReadOnly(unavailable(error, `write to ${this.#config.path}`));
      this.#config.warn(
        `${this.#config.path}: the writer failed unexpectedly (${String(error)}); storage is read-only.`,
      );
    });
  }

  async #work(): Promise<void> {
    // Appends made in the same turn of the event loop join the first flush.
    await Promise.resolve();
    // The batch flushed last, resolved only after the next flush's write was started (or at the end).
    let settle: Settle | undefined;
    const resolveFlushed = (): void => {
      settle?.();
      settle = undefined;
    };
    try {
      while (!this.#paused && this.#file !== null) {
        if (this.#syncDue) {
          // Under 'interval', the timer's fsync goes first: a stream of appends that never leaves the
          // queue empty must not put it off, or a power cut could lose more than the interval.
          resolveFlushed();
          this.#syncDue = false;
          if (this.#unsynced) await this.#syncWritten(this.#file);
        } else if (this.#urgentQueued > 0 || (this.#deferDue && this.#queue.length > 0)) {
          const urgent = this.#urgentQueued;
          const batch = this.#takeQueue();
          // #flush starts its write before its first await, so the disk has it before the answers of
          // the previous batch are made.
          const flushing = this.#flush(this.#file, batch);
          resolveFlushed();
          settle = await flushing;
          if (this.#urgentQueued * 2 < urgent) {
            // Under load, the clients answered now send their next writes at once. With fewer than half
            // a batch queued, waiting until the sockets have been read once more lets those writes share
            // the next write and sync, which cost about the same for one record as for sixty: fewer,
            // fuller batches. Nothing waits while writes come one or two at a time.
            resolveFlushed();
            await afterNextPoll();
          }
        } else {
          break;
        }
      }
    } finally {
      resolveFlushed();
      this.#worker = null;
    }
  }

  /** Writes one batch; returns how to resolve it, or undefined once it has been refused. */
  async #flush(file: StorageFile, batch: Pending[]): Promise<Settle | undefined> {
    const syncWrites = this.#openOptions.syncWrites === true;
    let data: Buffer;
    try {
      data = Buffer.from(batch.length === 1 ? (batch[0] as Pending).line : batch.map((p) => p.line).join(''));
      const startedMs = syncWrites ? performance.now() : 0;
      await writeAll(file, data);
      if (syncWrites) this.listener?.synced((performance.now() - startedMs) / 1000, batch.length);
    } catch (error) {
      const code = errorCode(error);
      if (syncWrites && code !== undefined && !NO_ROOM_CODES.has(code)) {
        // The sync half may be what failed: treated as a failed datasync.
        const failure = unavailable(error, `write and fsync ${this.#config.path}`);
        this.#turnReadOnly(failure);
        await this.#recover();
        for (const pending of batch) pending.reject(failure);
        return undefined;
      }
      // The batch is refused only once its bytes are cut off, so that a 503 never names a record a
      // restart could still find.
      const failure = unavailable(error, `write to ${this.#config.path}`);
      await this.#cutBack(file, failure);
      for (const pending of batch) pending.reject(failure);
      return undefined;
    }
    if (!syncWrites) {
      this.#unsynced = true;
      this.#unsyncedRecords += batch.length;
    }
    this.#bytes += data.length;
    this.#records += batch.length;
    if (this.#sinceSnapshot !== null) {
      this.#sinceSnapshot.chunks.push(data);
      this.#sinceSnapshot.records += batch.length;
    }
    return () => {
      for (const pending of batch) pending.resolve();
    };
  }

  /** Removes a failed batch's bytes; synced, so that they cannot come back after a power cut either. */
  async #cutBack(file: StorageFile, failure: StorageUnavailableError): Promise<void> {
    try {
      await file.truncate(this.#bytes);
      await file.datasync();
      this.#unsynced = false;
    } catch {
      this.#turnReadOnly(failure);
      await this.#recover();
    }
  }

  async #syncWritten(file: StorageFile): Promise<void> {
    try {
      const startedMs = performance.now();
      await file.datasync();
      this.listener?.synced((performance.now() - startedMs) / 1000, this.#unsyncedRecords);
      this.#unsynced = false;
      this.#unsyncedRecords = 0;
    } catch (error) {
      this.#turnReadOnly(unavailable(error, `fsync ${this.#config.path}`));
      await this.#recover();
    }
  }

  /** Everything queued, deferred appends included, which now need no flush of their own. */
  #takeQueue(): Pending[] {
    this.#urgentQueued = 0;
    this.#deferDue = false;
    clearTimeout(this.#deferTimer);
    this.#deferTimer = undefined;
    return this.#queue.splice(0);
  }

  #turnReadOnly(failure: StorageUnavailableError): void {
    this.#failure = failure;
    const queued = this.#takeQueue();
    for (const pending of queued) pending.reject(this.#refusal());
  }

  /** Reopens and verifies the log (reopen-log.ts); stays read-only, saying so, if that fails. */
  async #recover(): Promise<void> {
    const old = this.#file;
    this.#file = null;
    await old?.close().catch(() => {});
    if (this.#closing !== null) return;
    try {
      this.#file = await reopenVerified(
        this.#config.fs,
        this.#config.dir,
        this.#config.path,
        this.#bytes,
        this.#records,
        this.#openOptions,
      );
      this.#failure = null;
      this.#unsynced = false;
      this.#config.warn(`${this.#config.path}: reopened and verified the log after a failed write; writes resume.`);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.#config.warn(
        `${this.#config.path}: the log could not be verified after a failed write (${reason}); storage stays read-only until restarted.`,
      );
    }
  }

  async #compact(snapshot: () => Iterable<string>): Promise<void> {
    // Asked while open, and closed before its turn came: the log stays as it is, which is no failure
    // either (see below).
    if (this.#closing !== null) return;
    this.#assertWritable();
    const since = { chunks: [] as Buffer[], records: 0 };
    let temp: TempLog | null = null;
    let renamed = false;
    try {
      // The caller applies a record right after its append resolves, so the snapshot is taken with no
      // flush in flight and a turn of the event loop after the last one settled. Pausing the writer
      // for that turn (appends queue meanwhile) keeps a steady stream of flushes from starving it.
      await this.#pauseWriter();
      await new Promise<void>((resolve) => setImmediate(resolve));
      this.#assertWritable();
      const payloads = snapshot();
      this.#sinceSnapshot = since;
      this.#resumeWriter();
      temp = await TempLog.create(this.#config.fs, this.#config.tempPath, payloads, () => this.#assertWritable());
      // Copy what was flushed meanwhile and sync it all once without pausing, so that the pause below
      // (appends queue, unanswered) covers only the last few batches: the sync of a large snapshot takes
      // a while.
      const copied = since.chunks.length;
      await temp.appendChunks(since.chunks.slice(0, copied));
      await temp.sync();
      await this.#pauseWriter();
      this.#assertWritable();
      await temp.appendChunks(since.chunks.slice(copied));
      await temp.commit();
      this.#assertWritable();
      await this.#config.fs.rename(this.#config.tempPath, this.#config.path);
      renamed = true;
      await this.#switchTo(temp.bytes, temp.snapshotRecords + since.records);
      this.listener?.compacted();
    } catch (error) {
      if (!renamed) await (temp?.abandon() ?? this.#config.fs.unlink(this.#config.tempPath).catch(() => {}));
      // Stopped by a close (a graceful stop during a compaction): the old log is whole and stays the
      // log, so there is no failure to report.
      if (!renamed && this.#closing !== null) return;
      // A file-system failure is a 503; anything else (a snapshot that throws, a bad payload) is a bug to surface as is.
      throw errorCode(error) === undefined ? error : unavailable(error, `compact ${this.#config.path}`);
    } finally {
      this.#sinceSnapshot = null;
      this.#resumeWriter();
    }
  }

  /** Stops the worker from starting flushes, and waits for the one in flight. */
  async #pauseWriter(): Promise<void> {
    this.#paused = true;
    while (this.#worker !== null) await this.#worker;
  }

  #resumeWriter(): void {
    this.#paused = false;
    this.#kick();
  }

  /** After the rename: the old handle points at the replaced file, so reopen the log by name. */
  async #switchTo(bytes: number, records: number): Promise<void> {
    const old = this.#file;
    this.#file = null;
    this.#bytes = bytes;
    this.#records = records;
    this.#unsynced = false;
    await old?.close().catch(() => {});
    try {
      await this.#config.fs.syncDir(this.#config.dir);
      this.#file = await this.#config.fs.open(this.#config.path, 'a', this.#openOptions);
    } catch (error) {
      const failure = unavailable(error, `switch to the compacted ${this.#config.path}`);
      this.#turnReadOnly(failure);
      await this.#recover();
      throw failure;
    }
  }

  #assertWritable(): void {
    if (!this.writable) throw this.#refusal();
  }

  async #close(): Promise<void> {
    clearInterval(this.#timer);
    // A compaction under way stops at its next step (the journal no longer counts as writable).
    await this.#compaction?.catch(() => {});
    // Deferred appends still queued are written now, not left waiting.
    this.#deferDue = true;
    this.#kick();
    while (this.#worker !== null) await this.#worker;
    const file = this.#file;
    this.#file = null;
    if (file !== null) {
      try {
        if (this.#unsynced) await file.datasync();
      } catch (error) {
        this.#config.warn(`${this.#config.path}: the last writes could not be fsynced at close: ${String(error)}`);
      }
      await file
        .close()
        .catch((error: unknown) => this.#config.warn(`${this.#config.path}: close failed: ${String(error)}`));
    }
    await this.#config
      .releaseLock()
      .catch((error: unknown) =>
        this.#config.warn(`${this.#config.dir}: the lock could not be released: ${String(error)}`),
      );
  }
}
