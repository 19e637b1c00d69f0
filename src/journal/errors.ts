// The errors the storage layer throws, each one something a caller can match on (docs/storage.md).
// StorageUnavailableError becomes `503 unavailable`; the other two stop start-up.

/** A write could not be made durable (disk full, I/O error) or the journal refuses writes; answer 503. */
export class StorageUnavailableError extends Error {
  /** The underlying cause as an errno-style code (`ENOSPC`, `EIO`, ...): for a journal that refuses writes, `ECLOSED` or the code of the failed fsync. */
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StorageUnavailableError';
    this.code = code;
  }
}

/** The log is damaged before its last record; the file is left untouched for the operator. */
export class CorruptLogError extends Error {
  /** The log file as the caller named it. */
  readonly file: string;
  /** The damaged line, counted from 1. */
  readonly line: number;
  /** Byte offset of the start of the damaged line. */
  readonly offset: number;

  constructor(file: string, line: number, offset: number, reason: string) {
    super(
      `${file}: line ${line} (byte offset ${offset}) is damaged: ${reason}. ` +
        'The file was left untouched; restore it from a backup or move it aside before starting again.',
    );
    this.name = 'CorruptLogError';
    this.file = file;
    this.line = line;
    this.offset = offset;
  }
}

/** Another process (or another journal in this process) owns the data directory. */
export class DataDirLockedError extends Error {
  /** The pid written in the lock file. */
  readonly pid: number;
  /** The data directory. */
  readonly dir: string;

  constructor(dir: string, pid: number, message: string) {
    super(message);
    this.name = 'DataDirLockedError';
    this.pid = pid;
    this.dir = dir;
  }
}

/** The errno-style code of a thrown value (`ENOENT`, `ENOSPC`, ...), or undefined. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const code = (error as { code: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** Wraps any file-system failure as a StorageUnavailableError that keeps its cause and code. */
export function unavailable(error: unknown, action: string): StorageUnavailableError {
  if (error instanceof StorageUnavailableError) return error;
  const code = errorCode(error) ?? 'EIO';
  const detail = error instanceof Error ? error.message : String(error);
  return new StorageUnavailableError(code, `Storage cannot ${action}: ${detail}`, { cause: error });
}
