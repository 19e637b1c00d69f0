// What an observer (the metrics) may read of an open journal: its size, how long opening it took, and
// its fsyncs and compactions as they happen. Only the embedded store on a data directory has one, and
// it is handed over by whoever opened that store: the Store seam knows nothing of journals.
import type { JournalListener } from './journal.js';

/** A read-only view of one open journal, for metrics. */
export interface JournalWatch {
  /** The journal's intact records and bytes now. */
  stats(): { records: number; bytes: number };
  /** How long opening the store took (replaying the journal), in seconds. */
  readonly openSeconds: number;
  /** Sets the one listener told of fsyncs and compactions. */
  listen(listener: JournalListener): void;
}
