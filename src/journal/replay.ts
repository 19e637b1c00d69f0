// Replay: a pure function of the log's bytes. It returns every intact record's payload in file order,
// the byte length they span, and the torn tail after them, if any. Only the last line may be torn
// (docs/storage.md: it is what a crash mid-flush leaves: a line cut short); damage on any line, the
// last one included, is CorruptLogError.

import { CorruptLogError } from './errors.js';
import { NEWLINE, parseRecord } from './log-format.js';

/** What a log's bytes hold. */
export interface ReplayResult {
  /** The JSON payload text of every intact record, in file order. */
  payloads: string[];
  /** Byte length of the intact records: where the file must be cut if it has a torn tail. */
  validBytes: number;
  /** The bytes after the intact records, decoded as UTF-8 with replacement, and where they start. */
  tornTail?: { offset: number; text: string };
}

/** Replays a log's bytes; throws CorruptLogError (naming `fileName` and the line) for damage before the last line. */
export function replay(buffer: Uint8Array, fileName: string): ReplayResult {
  const payloads: string[] = [];
  const { validBytes, tornTail } = replayRecords(buffer, fileName, (bytes, start, end) => {
    payloads.push(bytes.toString('utf8', start, end));
  });
  return tornTail === undefined ? { payloads, validBytes } : { payloads, validBytes, tornTail };
}

/**
 * Receives one intact record's payload, `bytes[start, end)`, in file order, with where its line is:
 * `line` counted from 1, `lineOffset` the byte offset of its start (for an error naming it).
 */
export type RecordVisitor = (bytes: Buffer, start: number, end: number, line: number, lineOffset: number) => void;

/**
 * As replay, but hands each payload to `visit` as bytes instead of collecting strings: a reader that
 * keeps only part of a record (the pet's JSON) makes no string of the rest, which at a million records
 * is most of start-up's garbage. An error thrown by `visit` stops the replay.
 */
export function replayRecords(
  buffer: Uint8Array,
  fileName: string,
  visit: RecordVisitor,
): { records: number; validBytes: number; tornTail?: { offset: number; text: string } } {
  const bytes = buffer instanceof Buffer ? buffer : Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  let offset = 0;
  let line = 1;
  while (offset < bytes.length) {
    const newline = bytes.indexOf(NEWLINE, offset);
    // No newline: the last write stopped part-way through this record.
    if (newline === -1) return torn(bytes, line - 1, offset);
    const parsed = parseRecord(bytes, offset, newline);
    if (typeof parsed === 'string') {
      // A whole last line that fails its checks is damage like any other (a byte changed, a line
      // written by hand), and is left for the operator: a write cut short is a prefix of a line, with
      // no newline, unless the disk left zeros where it did not finish (a NUL never occurs in a record).
      const zero = bytes.indexOf(0, offset);
      if (newline === bytes.length - 1 && zero !== -1 && zero < newline) return torn(bytes, line - 1, offset);
      throw new CorruptLogError(fileName, line, offset, parsed);
    }
    visit(bytes, parsed.payloadStart, parsed.payloadEnd, line, offset);
    offset = newline + 1;
    line += 1;
  }
  return { records: line - 1, validBytes: offset };
}

function torn(
  bytes: Buffer,
  records: number,
  offset: number,
): { records: number; validBytes: number; tornTail: { offset: number; text: string } } {
  return { records, validBytes: offset, tornTail: { offset, text: bytes.toString('utf8', offset) } };
}
