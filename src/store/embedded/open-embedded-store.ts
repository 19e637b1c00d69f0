// Opening the embedded store: with a data directory, lock it, replay its journal into the collections,
// keep ids and event positions after any a torn last record may have handed out, and load the cursor secret and the keys
// file; without one, everything in memory for this process's life.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Clock } from '../../core/clock.js';
import { CorruptLogError } from '../../journal/errors.js';
import type { Durability } from '../../journal/journal.js';
import { journalChangeLog } from './change-log.js';
import { CURSOR_SECRET_FILE, loadOrCreateSecret } from './cursor-secret.js';
import { EmbeddedStore } from './embedded-store.js';
import { idGapProblem } from './indexed-collection.js';
import { FileKeyTable } from './key-file.js';
import { MemoryKeyTable } from './memory-key-table.js';
import { type Change, decodeChangeAt, idsInTornRecord } from './records.js';
import { type ChangeLog, EmbeddedState, NO_LOG } from './state.js';

/** The journal's file name inside the data directory. */
export const JOURNAL_FILE = 'animals.log';

/** How to open an embedded store. */
export interface EmbeddedStoreOptions {
  /** The data directory (created if missing); undefined keeps everything in memory. */
  dataDir: string | undefined;
  clock: Clock;
  durability: Durability;
  fsyncIntervalMs: number;
  /** The journal is compacted once at least this many of its records are superseded, and half of it or more. */
  compactMinRecords: number;
  /** Where warnings go: a torn tail cut off, a stale lock taken over, a failed compaction. */
  warn: (line: string) => void;
}

/** Opens (and locks) the embedded store of `options.dataDir`, or an in-memory one without a directory. */
export async function openEmbeddedStore(options: EmbeddedStoreOptions): Promise<EmbeddedStore> {
  const { dataDir, clock, warn } = options;
  const startedMs = performance.now();
  if (dataDir === undefined) {
    return new EmbeddedStore({
      state: new EmbeddedState(NO_LOG, clock),
      journal: undefined,
      keys: new MemoryKeyTable(),
      cursorSecret: randomBytes(32),
      clock,
    });
  }
  // Loaded only with a data directory: an in-memory embedding never needs the storage layer.
  const { openJournal } = await import('../../journal/open-journal.js');
  // Records are decoded from the log's bytes and applied as replay finds them, so that nothing but the
  // pets themselves outlives a record (a million changes held until the end doubled the time start-up
  // spent collecting garbage). A record this service did not write stops start-up, naming it. Writes
  // go to the journal once it is open; none is made before.
  let changeLog: ChangeLog = NO_LOG;
  const state = new EmbeddedState({ append: (payload) => changeLog.append(payload) }, clock);
  const onRecord = (bytes: Buffer, start: number, end: number, line: number, lineOffset: number): void => {
    let change: Change;
    try {
      change = decodeChangeAt(bytes, start, end, () => 'its record');
      state.apply(change);
    } catch (error) {
      // Intact framing around a record this service did not write (or one that cannot follow the
      // records before it): damage, named as any other.
      throw new CorruptLogError(join(dataDir, JOURNAL_FILE), line, lineOffset, (error as Error).message);
    }
  };
  const { journal, replayed } = await openJournal({
    dir: dataDir,
    fileName: JOURNAL_FILE,
    durability: options.durability,
    intervalMs: options.fsyncIntervalMs,
    warn,
    onRecord,
  });
  try {
    changeLog = journalChangeLog(journal, () => state, options.compactMinRecords, warn);
    if (replayed.tornTail !== undefined) {
      // A torn record was not applied, but under durability interval or never it may have been
      // acknowledged: the ids it may have handed out are not handed out again.
      // An id leaping as no whole record's may (MAX_ID_GAP) is noise in the torn bytes, not an id.
      const { petId, orderId, lastEventSeq } = idsInTornRecord(replayed.tornTail.text);
      const handedOut = (id: number | undefined, next: number): id is number =>
        id !== undefined && idGapProblem('id', id, next - 1) === undefined;
      if (handedOut(petId, state.pets.nextId)) state.pets.noteId(petId);
      if (handedOut(orderId, state.orders.nextId)) state.orders.noteId(orderId);
      // Event ids are what receivers de-duplicate on: one a torn record may have sent is never reused.
      const events = state.webhooks.events;
      if (handedOut(lastEventSeq, events.nextSeq)) events.noteSeq(lastEventSeq);
    }
    const cursorSecret = await loadOrCreateSecret(join(dataDir, CURSOR_SECRET_FILE));
    const keys = new FileKeyTable(dataDir);
    // A damaged keys file stops start-up here, naming it, rather than at the first request.
    await keys.list();
    return new EmbeddedStore({
      state,
      journal,
      keys,
      cursorSecret,
      clock,
      openSeconds: (performance.now() - startedMs) / 1000,
    });
  } catch (error) {
    await journal.close();
    throw error;
  }
}
