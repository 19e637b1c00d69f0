// Replay's fast path (a million pets in under 2 s): the two records a large log is mostly made of are
// read from the log's bytes without parsing JSON. A plain pet record, with or without the time and
// position of its event (`{"op":"pet"[,"at":MS,"ev":SEQ],"pet":PET}`), is recognised by its prefix and
// its status suffix, and the pet's JSON becomes the only string made of it; an event record of a
// compacted log (`{"op":"event","seq":…,"at":…,"type":…,"data":DATA}`) gives its data the same way. The
// record's checksum was verified by storage/, and it was validated when it was written.
import { EVENT_TYPES, type DeliveredEventType, TEST_EVENT_TYPE } from '../../events/event.js';
import { PET_STATUSES } from '../../pets/schemas.js';
import type { StoredPet } from '../../pets/stored-pet.js';
import { EVENT_RECORD_PREFIX, type WebhookChange } from './webhook-records.js';

/** A pet record read by the fast path. */
export interface PlainPetRecord {
  op: 'pet';
  pet: StoredPet;
  atMs?: number;
  eventSeq?: number;
}

const PET_OP = Buffer.from('{"op":"pet",');
const AT_FIELD = Buffer.from('"at":');
const EV_FIELD = Buffer.from(',"ev":');
const PET_FIELD = Buffer.from('"pet":{"id":');
const PET_SUFFIXES = PET_STATUSES.map((status) => [status, Buffer.from(`"status":"${status}"}}`)] as const);
const EVENT_OP = Buffer.from(EVENT_RECORD_PREFIX);
const EVENT_AT = Buffer.from(',"at":');
const EVENT_TYPE = Buffer.from(',"type":"');
const EVENT_DATA = Buffer.from('","data":');
const DELIVERED_TYPES: readonly DeliveredEventType[] = [...EVENT_TYPES, TEST_EVENT_TYPE];
const EVENT_TYPES_BY_NAME = new Map<string, DeliveredEventType>(DELIVERED_TYPES.map((type) => [type, type]));
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const QUOTE = 0x22;
const CLOSE = 0x7d;
const COMMA = 0x2c;
/** 2^53 − 1 has 16 digits. */
const MAX_DIGITS = 16;
/** Whether `bytes` holds `expected` at `at`; a plain loop, as Buffer#compare's argument checks cost more than these few bytes. */
function bytesAt(bytes: Buffer, at: number, expected: Buffer): boolean {
  for (let index = 0; index < expected.length; index++) {
    if (bytes[at + index] !== expected[index]) return false;
  }
  return true;
}

/** Where the digits that start at `start` end (at most `end`). */
function digitsEnd(bytes: Buffer, start: number, end: number): number {
  let index = start;
  while (index < end && (bytes[index] as number) >= DIGIT_0 && (bytes[index] as number) <= DIGIT_9) index++;
  return index;
}

/** The positive integer written in `bytes[start, stop)` (digits only), or -1 when it is empty, has a leading zero or is too long. */
function numberIn(bytes: Buffer, start: number, stop: number): number {
  if (stop === start || stop - start > MAX_DIGITS || bytes[start] === DIGIT_0) return -1;
  let value = 0;
  for (let index = start; index < stop; index++) value = value * 10 + ((bytes[index] as number) - DIGIT_0);
  return Number.isSafeInteger(value) ? value : -1;
}

/** The pet record `bytes[start, end)` when it is a plain one (no Idempotency-Key answer), else undefined. */
export function plainPetAt(bytes: Buffer, start: number, end: number): PlainPetRecord | undefined {
  if (end - start < PET_OP.length + PET_FIELD.length || !bytesAt(bytes, start, PET_OP)) return undefined;
  let index = start + PET_OP.length;
  let atMs = -1;
  let eventSeq = -1;
  if (bytes[index + 1] === AT_FIELD[1]) {
    if (!bytesAt(bytes, index, AT_FIELD)) return undefined;
    const atStart = index + AT_FIELD.length;
    const atEnd = digitsEnd(bytes, atStart, end);
    atMs = numberIn(bytes, atStart, atEnd);
    if (atMs < 0 || !bytesAt(bytes, atEnd, EV_FIELD)) return undefined;
    const evStart = atEnd + EV_FIELD.length;
    const evEnd = digitsEnd(bytes, evStart, end);
    eventSeq = numberIn(bytes, evStart, evEnd);
    if (eventSeq < 0 || bytes[evEnd] !== COMMA) return undefined;
    index = evEnd + 1;
  }
  if (!bytesAt(bytes, index, PET_FIELD)) return undefined;
  const jsonStart = index + PET_FIELD.length - '{"id":'.length;
  const idStart = index + PET_FIELD.length;
  const idEnd = digitsEnd(bytes, idStart, end);
  const id = numberIn(bytes, idStart, idEnd);
  if (id < 0 || bytes[idEnd] !== COMMA) return undefined;
  for (const [status, suffix] of PET_SUFFIXES) {
    if (end - suffix.length <= idEnd || !bytesAt(bytes, end - suffix.length, suffix)) continue;
    const pet = { id, status, json: bytes.toString('utf8', jsonStart, end - 1) };
    return eventSeq < 0 ? { op: 'pet', pet } : { op: 'pet', pet, atMs, eventSeq };
  }
  return undefined;
}

/** The event record `bytes[start, end)`, its data's JSON sliced out as it is; undefined when it is not one. */
export function eventRecordAt(bytes: Buffer, start: number, end: number): WebhookChange | undefined {
  if (!bytesAt(bytes, start, EVENT_OP)) return undefined;
  const seqStart = start + EVENT_OP.length;
  const seqEnd = digitsEnd(bytes, seqStart, end);
  const seq = numberIn(bytes, seqStart, seqEnd);
  if (seq < 0 || !bytesAt(bytes, seqEnd, EVENT_AT)) return undefined;
  const atStart = seqEnd + EVENT_AT.length;
  const atEnd = digitsEnd(bytes, atStart, end);
  const atMs = numberIn(bytes, atStart, atEnd);
  if (atMs < 0 || !bytesAt(bytes, atEnd, EVENT_TYPE)) return undefined;
  const typeStart = atEnd + EVENT_TYPE.length;
  const typeEnd = bytes.indexOf(QUOTE, typeStart);
  if (typeEnd < 0 || typeEnd >= end || !bytesAt(bytes, typeEnd, EVENT_DATA)) return undefined;
  const type = EVENT_TYPES_BY_NAME.get(bytes.toString('latin1', typeStart, typeEnd));
  const dataStart = typeEnd + EVENT_DATA.length;
  if (type === undefined || end - 2 < dataStart || bytes[end - 1] !== CLOSE || bytes[end - 2] !== CLOSE)
    return undefined;
  return { op: 'event', seq, atMs, type, dataJson: bytes.toString('utf8', dataStart, end - 1) };
}
