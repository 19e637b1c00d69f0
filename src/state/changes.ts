// The records of the log: every acknowledged change is one record, applied whole or not at all.
//   {"op":"pet","pet":PET[,"idem":TAG]}                 a pet created
//   {"op":"order","order":ORDER[,"pet":PET][,"idem":TAG]} an order placed or moved on, with its pet's new state
//   {"op":"idem","idem":ENTRY}                          a remembered answer on its own (written by compaction)
// An order and its pet's status change, and a change and its Idempotency-Key answer, share one record,
// so after a crash either both happened or neither did (issue 5). Decoding is a pure function.
import type { IdempotencyEntry } from '../idempotency/idempotency-store.js';
import { storedOrder, type StoredOrder } from '../orders/order-book.js';
import { ORDER_STATUSES, type OrderStatus } from '../orders/schemas.js';
import { storedPet, type StoredPet } from '../pets/pet-store.js';
import { PET_STATUSES, type PetStatus } from '../pets/schemas.js';

/** What a change remembers for its Idempotency-Key; the answer's body is the created item's JSON. */
export type IdempotencyTag = Omit<IdempotencyEntry, 'body'>;

export type Change =
  | { op: 'pet'; pet: StoredPet; idem?: IdempotencyTag }
  | { op: 'order'; order: StoredOrder; pet?: StoredPet; idem?: IdempotencyTag }
  | { op: 'idem'; entry: IdempotencyEntry };

function tagJson(tag: IdempotencyTag): string {
  return JSON.stringify({ scope: tag.scope, key: tag.key, fingerprint: tag.fingerprint, status: tag.status, location: tag.location, expiresAtMs: tag.expiresAtMs });
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
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function decodePet(value: unknown): StoredPet | undefined {
  if (!isObject(value)) return undefined;
  const { id, name, categoryId, status } = value;
  if (!isId(id) || typeof name !== 'string' || !isId(categoryId) || !PET_STATUSES.includes(status as PetStatus)) return undefined;
  return storedPet(id, name, categoryId, status as PetStatus);
}

function decodeOrder(value: unknown): StoredOrder | undefined {
  if (!isObject(value)) return undefined;
  const { id, petId, status, createdAt } = value;
  if (!isId(id) || !isId(petId) || !ORDER_STATUSES.includes(status as OrderStatus) || typeof createdAt !== 'string') return undefined;
  return storedOrder(id, petId, status as OrderStatus, createdAt);
}

function decodeTag(value: unknown): IdempotencyTag | undefined {
  if (!isObject(value)) return undefined;
  const { scope, key, fingerprint, status, location, expiresAtMs } = value;
  if (typeof scope !== 'string' || typeof key !== 'string' || typeof fingerprint !== 'string' || !isId(status)
    || typeof location !== 'string' || !Number.isSafeInteger(expiresAtMs)) return undefined;
  return { scope, key, fingerprint, status, location, expiresAtMs: expiresAtMs as number };
}

// Replay's fast path (issue 6: a million pets in under 2 s): a plain pet record is recognised by its
// fixed prefix and its status suffix, and the pet's JSON is taken from it as it is, without parsing.
// The record's checksum was verified by storage/, and it was validated when it was written.
const PET_RECORD_PREFIX = '{"op":"pet","pet":{"id":';
const PET_RECORD_SUFFIXES = PET_STATUSES.map((status) => [status, `"status":"${status}"}}`] as const);

function decodePlainPet(payload: string): Change | undefined {
  if (!payload.startsWith(PET_RECORD_PREFIX)) return undefined;
  for (const [status, suffix] of PET_RECORD_SUFFIXES) {
    if (!payload.endsWith(suffix)) continue;
    const comma = payload.indexOf(',', PET_RECORD_PREFIX.length);
    const id = Number(payload.slice(PET_RECORD_PREFIX.length, comma));
    if (!isId(id)) return undefined;
    return { op: 'pet', pet: { id, status, json: payload.slice(PET_RECORD_PREFIX.length - '{"id":'.length, payload.length - 1) } };
  }
  return undefined;
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
