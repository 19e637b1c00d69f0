// The journal as the embedded store's change log (the storage layer under the store): a write the
// journal cannot make durable becomes `503 unavailable`, and the log is compacted in the background
// once enough of it is superseded.
import { ApiError } from '../../core/errors.js';
import type { Journal } from '../../journal/journal.js';
import type { ChangeLog, EmbeddedState } from './state.js';

/** Seconds a client is asked to wait after a 503 of the storage layer. */
const STORAGE_RETRY_AFTER_SECONDS = 5;

/**
 * The journal as a change log: a write it cannot make durable is `503 unavailable`, and once at least
 * `compactMinRecords` records of the log are superseded (old order and pet states, expired
 * Idempotency-Key answers, attempts past the kept ones) and they are half of it or more, it is
 * compacted in the background. Half, as Redis rewrites its append-only file once it has doubled: a
 * compaction rewrites the live records, so waiting until as many are superseded bounds that work to
 * one record rewritten per record appended, and replay to twice the live records. Attempt records
 * (one per delivery) are most of a busy log, and each compaction copies the whole state.
 */
export function journalChangeLog(
  journal: Journal,
  stateOf: () => EmbeddedState,
  compactMinRecords: number,
  log: (line: string) => void,
): ChangeLog {
  let compacting = false;
  const compactIfWorthIt = (): void => {
    const { records } = journal.stats;
    const superseded = records - stateOf().liveRecords;
    if (compacting || superseded < compactMinRecords || superseded * 2 < records) return;
    compacting = true;
    journal
      .compact(() => stateOf().frozenSnapshot())
      .catch((error: unknown) => log(`compaction failed: ${(error as Error).message}`))
      .finally(() => {
        compacting = false;
      });
  };
  const refused = (error: unknown): never => {
    if (!(error instanceof Error) || error.name !== 'StorageUnavailableError') throw error;
    const code = (error as Error & { code?: string }).code ?? 'EIO';
    throw new ApiError(
      'unavailable',
      `The store cannot save changes right now (${code}); reads still work, retry later`,
      undefined,
      { retryAfterSeconds: STORAGE_RETRY_AFTER_SECONDS },
    );
  };
  return {
    append: (payload) => journal.append(payload).then(compactIfWorthIt, refused),
    appendDeferred: (payload) => journal.appendDeferred(payload).then(compactIfWorthIt, refused),
  };
}
