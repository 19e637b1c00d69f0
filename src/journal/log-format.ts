// The record framing of the append-only log: one record per line, `<length>:<crc32>:<payload>\n`.
// `length` is the payload's byte length in decimal and `crc32` its CRC-32 (zlib's) as 8 lowercase hex
// digits, so a torn or damaged line can never pass for a valid record. `parseRecord` is the inverse.

import { crc32 } from 'node:zlib';
import { crc32Of } from './crc32.js';

/** The byte that ends every record. */
export const NEWLINE = 0x0a;
/** Ten decimal digits cover any payload a process can hold (a JS string is below 2^32 bytes). */
const MAX_LENGTH_DIGITS = 10;
const CRC_HEX_DIGITS = 8;
const COLON = 0x3a;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const LOWER_A = 0x61;
const LOWER_F = 0x66;

/** The line (newline included) that stores `payload`; throws TypeError on a payload that would break the framing. */
export function encodeRecord(payload: string): string {
  if (typeof payload !== 'string' || payload.length === 0) {
    throw new TypeError('A journal record payload must be a non-empty string.');
  }
  // A raw newline would split the record in two; JSON.stringify never emits one.
  if (payload.includes('\n')) throw new TypeError('A journal record payload must not contain a newline.');
  const crc = crc32(payload).toString(16).padStart(CRC_HEX_DIGITS, '0');
  return `${Buffer.byteLength(payload)}:${crc}:${payload}\n`;
}

/** Where a valid record's payload sits in a buffer. */
export interface ParsedRecord {
  payloadStart: number;
  payloadEnd: number;
}

/**
 * Checks the line `buffer[start, end)` (without its newline) and returns its payload's bounds,
 * or a string saying what is wrong with it.
 */
export function parseRecord(buffer: Uint8Array, start: number, end: number): ParsedRecord | string {
  let i = start;
  let length = 0;
  while (i < end && i - start <= MAX_LENGTH_DIGITS) {
    const byte = buffer[i] as number;
    if (byte < DIGIT_0 || byte > DIGIT_9) break;
    length = length * 10 + (byte - DIGIT_0);
    i += 1;
  }
  const digits = i - start;
  if (digits === 0 || digits > MAX_LENGTH_DIGITS) return 'the record header has no valid length';
  if (digits > 1 && buffer[start] === DIGIT_0) return 'the record length has a leading zero';
  if (buffer[i] !== COLON || i >= end) return 'the record header is malformed';
  i += 1;
  let crc = 0;
  for (const stop = i + CRC_HEX_DIGITS; i < stop; i += 1) {
    if (i >= end) return 'the record header is cut short';
    const byte = buffer[i] as number;
    let nibble: number;
    if (byte >= DIGIT_0 && byte <= DIGIT_9) nibble = byte - DIGIT_0;
    else if (byte >= LOWER_A && byte <= LOWER_F) nibble = byte - LOWER_A + 10;
    else return 'the record checksum is not hexadecimal';
    crc = crc * 16 + nibble;
  }
  if (i >= end || buffer[i] !== COLON) return 'the record header is malformed';
  const payloadStart = i + 1;
  if (end - payloadStart !== length) {
    return `the record says ${length} payload bytes but holds ${end - payloadStart}`;
  }
  if (length === 0) return 'the record payload is empty';
  if (crc32Of(buffer, payloadStart, end) !== crc) return 'the record checksum does not match its payload';
  return { payloadStart, payloadEnd: end };
}
