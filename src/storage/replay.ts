// Replay: a pure function of the log's bytes. It returns every intact record's payload in file order,
// the byte length they span, and the torn tail after them, if any. Only the last line may be torn
// (CONTRACT.md §7: it is what a crash mid-flush leaves); damage on any earlier line is CorruptLogError.

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
  const bytes = buffer instanceof Buffer ? buffer : Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  const payloads: string[] = [];
  let offset = 0;
  let line = 1;
  while (offset < bytes.length) {
    const newline = bytes.indexOf(NEWLINE, offset);
    // No newline: the last write stopped part-way through this record.
    if (newline === -1) return torn(bytes, payloads, offset);
    const parsed = parseRecord(bytes, offset, newline);
    if (typeof parsed === 'string') {
      if (newline === bytes.length - 1) return torn(bytes, payloads, offset);
      throw new CorruptLogError(fileName, line, offset, parsed);
    }
    payloads.push(bytes.toString('utf8', parsed.payloadStart, parsed.payloadEnd));
    offset = newline + 1;
    line += 1;
  }
  return { payloads, validBytes: offset };
}

function torn(bytes: Buffer, payloads: string[], offset: number): ReplayResult {
  return { payloads, validBytes: offset, tornTail: { offset, text: bytes.toString('utf8', offset) } };
}
