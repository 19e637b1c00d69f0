// The records of the log: every acknowledged change is one record, applied whole or not at all.
//   {"op":"pet","pet":PET[,"idem":TAG]}                 a pet created
//   {"op":"order","order":ORDER[,"pet":PET][,"idem":TAG]} an order placed or moved on, with its pet's new state
//   {"op":"idem","idem":ENTRY}                          a remembered answer on its own (written by compaction)
// An order and its pet's status change, and a change and its Idempotency-Key answer, share one record,
// so after a crash either both happened or neither did. Decoding is a pure function.
// TAG is {scope, key, fingerprint, status, expiresAtMs}; logs of the first release also carry a
// "location", which is read and ignored (the Location of a replayed answer is made from the item's id).
import { ORDER_STATUSES, type OrderStatus } from '../../orders/schemas.js';
import { type StoredOrder, storedOrder } from '../../orders/stored-order.js';
import { PET_STATUSES, type PetStatus } from '../../pets/schemas.js';
import { type StoredPet, storedPet } from '../../pets/stored-pet.js';
import type { IdempotencyRecord } from '../store.js';
import type { IdempotencyEntry } from './idempotency-table.js';

/** What a change remembers for its Idempotency-Key; the answer's body is the created item's JSON. */
export type IdempotencyTag = IdempotencyRecord;

export type Change =
  | { op: 'pet'; pet: StoredPet; idem?: IdempotencyTag }
  | { op: 'order'; order: StoredOrder; pet?: StoredPet; idem?: IdempotencyTag }
  | { op: 'idem'; entry: IdempotencyEntry };

function tagJson(tag: IdempotencyTag): string {
  return JSON.stringify({
    scope: tag.scope,
    key: tag.key,
    fingerprint: tag.fingerprint,
    status: tag.status,
    expiresAtMs: tag.expiresAtMs,
  });
}

/** The record text of a change; pets and orders bring their ready JSON. */
export function encodeChange(change: Change): string {
  switch (change.op) {
    case 'pet':
      return `{"op":"pet","pet":${change.pet.json}${change.idem === undefined ? '' : `,"idem":${tagJson(change.idem)}`}}`;
    case 'order':
      return `{"op":"order","order":${change.order.json}${change.pet === undefined ? '' : `,"pet":${change.pet.json}`}${change.idem === undefined ? '' : `,"idem":${tagJson(change.idem)}`}}`;
    case 'idem':
      return `{"op":"idem","idem":${JSON.stringify(change.entry)}}`;
  }
}

type Json = Record<string, unknown>;

const isId = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) > 0;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function decodePet(value: unknown): StoredPet | undefined {
  if (!isObject(value)) return undefined;
  const { id, name, categoryId, status } = value;
  if (!isId(id) || typeof name !== 'string' || !isId(categoryId) || !PET_STATUSES.includes(status as PetStatus))
    return undefined;
  return storedPet(id, name, categoryId, status as PetStatus);
}

function decodeOrder(value: unknown): StoredOrder | undefined {
  if (!isObject(value)) return undefined;
  const { id, petId, status, createdAt } = value;
  if (!isId(id) || !isId(petId) || !ORDER_STATUSES.includes(status as OrderStatus) || typeof createdAt !== 'string')
    return undefined;
  return storedOrder(id, petId, status as OrderStatus, createdAt);
}

function decodeTag(value: unknown): IdempotencyTag | undefined {
  if (!isObject(value)) return undefined;
  const { scope, key, fingerprint, status, location, expiresAtMs } = value;
  if (
    typeof scope !== 'string' ||
    typeof key !== 'string' ||
    typeof fingerprint !== 'string' ||
    !isId(status) ||
    (location !== undefined && typeof location !== 'string') ||
    !Number.isSafeInteger(expiresAtMs)
  )
    return undefined;
  return { scope, key, fingerprint, status, expiresAtMs: expiresAtMs as number };
}

// Replay's fast path (a million pets in under 2 s): a plain pet record is recognised by its
// fixed prefix and its status suffix, and the pet's JSON is taken from it as it is, without parsing.
// The record's checksum was verified by journal/, and it was validated when it was written.
const PET_RECORD_PREFIX = '{"op":"pet","pet":{"id":';
const PET_RECORD_SUFFIXES = PET_STATUSES.map((status) => [status, `"status":"${status}"}}`] as const);

function decodePlainPet(payload: string): Change | undefined {
  if (!payload.startsWith(PET_RECORD_PREFIX)) return undefined;
  for (const [status, suffix] of PET_RECORD_SUFFIXES) {
    if (!payload.endsWith(suffix)) continue;
    const comma = payload.indexOf(',', PET_RECORD_PREFIX.length);
    const id = Number(payload.slice(PET_RECORD_PREFIX.length, comma));
    if (!isId(id)) return undefined;
    return {
      op: 'pet',
      pet: { id, status, json: payload.slice(PET_RECORD_PREFIX.length - '{"id":'.length, payload.length - 1) },
    };
  }
  return undefined;
}

const PET_PREFIX_BYTES = Buffer.from(PET_RECORD_PREFIX);
const PET_SUFFIX_BYTES = PET_RECORD_SUFFIXES.map(([status, suffix]) => [status, Buffer.from(suffix)] as const);
/** Where the pet's JSON starts in a plain pet record: at its `{"id":`. */
const PET_JSON_OFFSET = PET_RECORD_PREFIX.length - '{"id":'.length;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const COMMA = 0x2c;
/** 2^53 − 1 has 16 digits. */
const MAX_ID_DIGITS = 16;

/** Whether `bytes` holds `expected` at `at`; a plain loop, as Buffer#compare's argument checks cost more than these few bytes. */
function bytesAt(bytes: Buffer, at: number, expected: Buffer): boolean {
  for (let index = 0; index < expected.length; index++) {
    if (bytes[at + index] !== expected[index]) return false;
  }
  return true;
}

/** decodePlainPet on the record's bytes: the pet's JSON becomes the only string made of it. */
function decodePlainPetAt(bytes: Buffer, start: number, end: number): Change | undefined {
  const idStart = start + PET_PREFIX_BYTES.length;
  if (end <= idStart || !bytesAt(bytes, start, PET_PREFIX_BYTES)) return undefined;
  let id = 0;
  let index = idStart;
  for (; index < end && index - idStart <= MAX_ID_DIGITS; index++) {
    const byte = bytes[index] as number;
    if (byte === COMMA) break;
    if (byte < DIGIT_0 || byte > DIGIT_9 || (byte === DIGIT_0 && index === idStart)) return undefined;
    id = id * 10 + (byte - DIGIT_0);
  }
  if (bytes[index] !== COMMA || !isId(id)) return undefined;
  for (const [status, suffix] of PET_SUFFIX_BYTES) {
    if (end - suffix.length <= index || !bytesAt(bytes, end - suffix.length, suffix)) continue;
    return { op: 'pet', pet: { id, status, json: bytes.toString('utf8', start + PET_JSON_OFFSET, end - 1) } };
  }
  return undefined;
}

/**
 * decodeChange of the record `bytes[start, end)`, as replay hands it over: a plain pet record is
 * read from the bytes, any other is decoded as text. `where` names the record for an error.
 */
export function decodeChangeAt(bytes: Buffer, start: number, end: number, where: () => string): Change {
  return decodePlainPetAt(bytes, start, end) ?? decodeChange(bytes.toString('utf8', start, end), where());
}

/** Parses a record; throws an Error naming `where` when it is not one this service writes. */
export function decodeChange(payload: string, where: string): Change {
  const plainPet = decodePlainPet(payload);
  if (plainPet !== undefined) return plainPet;
  let record: unknown;
  try {
    record = JSON.parse(payload);
  } catch {
    throw new Error(`${where} is not JSON`);
  }
  const fault = (what: string): Error => new Error(`${where} is not a record this service writes (${what})`);
  if (!isObject(record)) throw fault('not an object');
  const idem = record.idem === undefined ? undefined : decodeTag(record.idem);
  if (record.idem !== undefined && idem === undefined && record.op !== 'idem') throw fault('bad idem');
  switch (record.op) {
    case 'pet': {
      const pet = decodePet(record.pet);
      if (pet === undefined) throw fault('bad pet');
      return idem === undefined ? { op: 'pet', pet } : { op: 'pet', pet, idem };
    }
    case 'order': {
      const order = decodeOrder(record.order);
      const pet = record.pet === undefined ? undefined : decodePet(record.pet);
      if (order === undefined || (record.pet !== undefined && pet === undefined)) throw fault('bad order');
      return { op: 'order', order, ...(pet !== undefined && { pet }), ...(idem !== undefined && { idem }) };
    }
    case 'idem': {
      const tag = decodeTag(record.idem);
      const body = isObject(record.idem) ? record.idem.body : undefined;
      if (tag === undefined || typeof body !== 'string') throw fault('bad idem');
      return { op: 'idem', entry: { ...tag, body } };
    }
    default:
      throw fault(`op ${JSON.stringify(record.op)}`);
  }
}

// A torn last record cannot be verified, so it is not applied; but under durability "interval" or
// "never" its change may have been acknowledged, so the ids it may have assigned are not handed out
// again: ids continue after the highest id ever written. An order record's id is an order id.
const TORN_PET_ID = /\{"op":"pet","pet":\{"id":([1-9][0-9]{0,15})[,}]/;
const TORN_ORDER_ID = /\{"op":"order","order":\{"id":([1-9][0-9]{0,15})[,}]/;

/** The pet or order id that the text of a torn record may have assigned, if it can be read. */
export function idsInTornRecord(text: string): { petId?: number; orderId?: number } {
  const petId = TORN_PET_ID.exec(text)?.[1];
  if (petId !== undefined) return { petId: Number(petId) };
  const orderId = TORN_ORDER_ID.exec(text)?.[1];
  return orderId === undefined ? {} : { orderId: Number(orderId) };
}
