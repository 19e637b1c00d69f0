// Log lines gathered and written in one piece per turn of the event loop. Under load, a turn answers
// many requests; one write of all their lines costs one system call where a write per line costs one
// each (a pipe or a file is written synchronously by Node, so each of those calls also blocks the
// loop). What is gathered is written at the end of the turn, before the process exits (also after an
// uncaught exception, whose report Node writes on exit), and on `flush()`. Only a kill -9 loses lines:
// those of the turn it interrupts.

/** Gathers lines for `write`, which receives them joined, at most once per turn of the event loop. */
export interface BufferedLines {
  /** Adds one line (its newline included). */
  write(line: string): void;
  /** Writes what is gathered now. */
  flush(): void;
  /** Writes what is gathered and stops flushing on exit; later lines are written one by one. */
  close(): void;
}

export function bufferLines(write: (chunk: string) => void): BufferedLines {
  let pending = '';
  let scheduled = false;
  let closed = false;
  const flush = (): void => {
    scheduled = false;
    if (pending === '') return;
    const chunk = pending;
    pending = '';
    write(chunk);
  };
  process.on('exit', flush);
  return {
    write(line) {
      if (closed) {
        write(line);
        return;
      }
      pending += line;
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
    close() {
      flush();
      closed = true;
      process.off('exit', flush);
    },
  };
}
