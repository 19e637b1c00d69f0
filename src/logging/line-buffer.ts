// Log lines gathered as bytes and written together: at most FLUSH_PERIOD_MS after the first line
// gathered, at once when FLUSH_BYTES are gathered, on `flush()`, and before the process exits (also
// after an uncaught exception, whose report Node writes on exit). Only a kill -9 loses lines: those of
// the last FLUSH_PERIOD_MS at most.
//
// Why not a write a line: a pipe or a file is written synchronously by Node, so each write is a system
// call that blocks the event loop. Why not a write a turn of the event loop (as this did before): under
// load a turn answers few requests (two or three), and the write and the scheduling of each turn cost
// about 6 % of the CPU time of a `get`, measured on two processes serving side by side.
//
// Why bytes: what is gathered is encoded once, as it is added, into one reused buffer, instead of
// kept as a string of thousands of pieces that is flattened and encoded when written.

/** The buffer's first size; it grows by doubling when more is gathered between two writes. */
const INITIAL_BYTES = 16 * 1024;
/** Gathered past this, the lines are written at once. */
export const FLUSH_BYTES = 64 * 1024;
/** The longest a line waits to be written: short enough for `tail -f`, long enough to gather many. */
const FLUSH_PERIOD_MS = 20;

/** Where gathered lines go: one chunk, owned by the receiver from then on. */
export type ChunkWriter = (chunk: Buffer) => void;

/** Gathers log lines as UTF-8 bytes for `write`. */
export class LineBuffer {
  #bytes = Buffer.allocUnsafe(INITIAL_BYTES);
  #length = 0;
  #scheduled = false;
  #batched: boolean;
  /** The text of the lines kept aside by their producer (the access log's); see formLinesWith. */
  #formKept: (() => string) | undefined;
  readonly #periodMs: number;
  readonly #write: ChunkWriter;
  /** The timer's flush (and the exit's): the next line schedules another. */
  readonly #flushNow = (): void => {
    this.#scheduled = false;
    this.flush();
  };

  /**
   * `batched` (the default): lines are written together, as above, within `periodMs`
   * (FLUSH_PERIOD_MS by default). Otherwise each line is written as it comes (an embedding program's or
   * a test's logger, which expects its line at once).
   */
  constructor(write: ChunkWriter, options: { batched?: boolean; periodMs?: number } = {}) {
    this.#write = write;
    this.#batched = options.batched ?? true;
    this.#periodMs = options.periodMs ?? FLUSH_PERIOD_MS;
    if (this.#batched) process.on('exit', this.#flushNow);
  }

  /**
   * A producer that keeps its lines aside and forms them together: `formKept` returns their text (and
   * forgets them). It is asked before any other line is added and before the buffer is written, so
   * that lines keep their order. One producer a buffer.
   */
  formLinesWith(formKept: () => string): void {
    if (this.#formKept !== undefined) throw new TypeError('a LineBuffer forms the kept lines of one producer only');
    this.#formKept = formKept;
  }

  /** The producer kept a line aside: it is formed and written with the next write (at once, unbatched). */
  linePending(): void {
    if (this.#batched) this.#schedule();
    else this.flush();
  }

  /** Adds whole lines of any text, each with its newline. */
  writeText(lines: string): void {
    this.#addKept();
    this.#add(lines);
    if (!this.#batched || this.#length >= FLUSH_BYTES) this.#writeOut();
    else this.#schedule();
  }

  /** Writes what is gathered now. */
  flush(): void {
    this.#addKept();
    this.#writeOut();
  }

  #writeOut(): void {
    const length = this.#length;
    if (length === 0) return;
    // A copy goes out, so that the buffer can be filled again while a pipe still holds the chunk.
    const chunk = Buffer.allocUnsafe(length);
    this.#bytes.copy(chunk, 0, 0, length);
    this.#length = 0;
    this.#write(chunk);
  }

  /** Writes what is gathered and stops flushing on exit; later lines are written one by one. */
  close(): void {
    this.flush();
    if (!this.#batched) return;
    this.#batched = false;
    process.off('exit', this.#flushNow);
  }

  /**
   * A write within the period, unless one is due already (a flush in between leaves it: it then writes
   * what came since). The timer does not keep the process alive: lines left are written on exit.
   */
  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setTimeout(this.#flushNow, this.#periodMs).unref();
  }

  #addKept(): void {
    if (this.#formKept === undefined) return;
    const kept = this.#formKept();
    if (kept !== '') this.#add(kept);
  }

  #add(text: string): void {
    this.#reserve(text.length * 3);
    this.#length += this.#bytes.write(text, this.#length, 'utf8');
  }

  /** Makes room for `more` bytes after those gathered. */
  #reserve(more: number): void {
    const needed = this.#length + more;
    if (needed <= this.#bytes.length) return;
    let size = this.#bytes.length * 2;
    while (size < needed) size *= 2;
    const larger = Buffer.allocUnsafe(size);
    this.#bytes.copy(larger, 0, 0, this.#length);
    this.#bytes = larger;
  }
}
