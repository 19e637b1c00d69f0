// The records of the log: every acknowledged change is one record, applied whole or not at all.
//   {"op":"pet"[,"at":MS,"ev":SEQ],"pet":PET[,"idem":TAG]}                  a pet created
//   {"op":"order"[,"at":MS,"ev":SEQ],"order":ORDER[,"pet":PET][,"idem":TAG]} an order placed or moved on, with its pet's new state
//   {"op":"idem","idem":ENTRY}                          a remembered answer on its own (written by compaction)
// and the records of webhooks (webhook-records.ts). An order and its pet's status change, a change and
// its Idempotency-Key answer, and a change and its events share one record, so after a crash either
// all happened or none did. A change's events are not written out: `at` is the change's time and `ev`
// the position of its first event; the types follow from the kind of record (pet.created; order.created
// or order.updated, then pet.updated) and the data from the pet and the order, so replay derives them
// exactly as the commit did. Records of the first release have no `at` and record no events.
// Decoding is a pure function. TAG is {scope, key, fingerprint, status, expiresAtMs}; logs of the first
// release also carry a "location", which is read and ignored.
import { ORDER_STATUSES, type OrderStatus } from '../../orders/schemas.js';
import { type StoredOrder, storedOrder } from '../../orders/stored-order.js';
import { PET_STATUSES, type PetStatus } from '../../pets/schemas.js';
import { type StoredPet, storedPet } from '../../pets/stored-pet.js';
import type { IdempotencyRecord } from '../store.js';
import type { IdempotencyEntry } from './idempotency-table.js';
import { eventRecordAt, plainPetAt } from './record-fast-path.js';
import { decodeEntry, decodeTag, isId, isObject, isTime, tagJson } from './record-fields.js';
import { decodeWebhookChange } from './webhook-record-decoder.js';
import { encodeWebhookChange, WEBHOOK_OPS, type WebhookChange } from './webhook-records.js';

/** What a change remembers for its Idempotency-Key; the answer's body is the created item's JSON. */
export type IdempotencyTag = IdempotencyRecord;

/** The events of a pet or order change: its time, and the position of its first event (the next follow it). */
interface ChangeEvents {
  atMs?: number;
  eventSeq?: number;
}

export type Change =
  | ({ op: 'pet'; pet: StoredPet; idem?: IdempotencyTag } & ChangeEvents)
  | ({ op: 'order'; order: StoredOrder; pet?: StoredPet; idem?: IdempotencyTag } & ChangeEvents)
  | { op: 'idem'; entry: IdempotencyEntry }
  | WebhookChange;

const eventsField = (change: ChangeEvents): string =>
  change.atMs === undefined || change.eventSeq === undefined ? '' : `,"at":${change.atMs},"ev":${change.eventSeq}`;
const tagField = (tag: IdempotencyTag | undefined): string => (tag === undefined ? '' : `,"idem":${tagJson(tag)}`);

/** The record text of a change; pets and orders bring their ready JSON. */
export function encodeChange(change: Change): string {
  switch (change.op) {
    case 'pet':
      return `{"op":"pet"${eventsField(change)},"pet":${change.pet.json}${tagField(change.idem)}}`;
    case 'order':
      return `{"op":"order"${eventsField(change)},"order":${change.order.json}${change.pet === undefined ? '' : `,"pet":${change.pet.json}`}${tagField(change.idem)}}`;
    case 'idem':
      return `{"op":"idem","idem":${JSON.stringify(change.entry)}}`;
    default:
      return encodeWebhookChange(change);
  }
}

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

/**
 * decodeChange of the record `bytes[start, end)`, as replay hands it over: a plain pet record and an
 * event record are read from the bytes (record-fast-path.ts), any other is decoded as text. `where`
 * names the record for an error.
 */
export function decodeChangeAt(bytes: Buffer, start: number, end: number, where: () => string): Change {
  return (
    plainPetAt(bytes, start, end) ??
    eventRecordAt(bytes, start, end) ??
    decodeText(bytes.toString('utf8', start, end), where())
  );
}

/** Parses a record; throws an Error naming `where` when it is not one this service writes. */
export function decodeChange(payload: string, where: string): Change {
  const bytes = Buffer.from(payload);
  return decodeChangeAt(bytes, 0, bytes.length, () => where);
}

function decodeText(payload: string, where: string): Change {
  let record: unknown;
  try {
    record = JSON.parse(payload);
  } catch {
    throw new Error(`${where} is not JSON`);
  }
  const fault = (what: string): Error => new Error(`${where} is not a record this service writes (${what})`);
  if (!isObject(record)) throw fault('not an object');
  if (typeof record.op === 'string' && WEBHOOK_OPS.has(record.op)) {
    const change = decodeWebhookChange(record);
    if (typeof change === 'string') throw fault(change);
    return change;
  }
  const idem = record.idem === undefined ? undefined : decodeTag(record.idem);
  if (record.idem !== undefined && idem === undefined && record.op !== 'idem') throw fault('bad idem');
  const { at, ev } = record;
  if ((at !== undefined || ev !== undefined) && !(isTime(at) && isId(ev))) throw fault('bad at or ev');
  const events = at === undefined ? {} : { atMs: at as number, eventSeq: ev as number };
  switch (record.op) {
    case 'pet': {
      const pet = decodePet(record.pet);
      if (pet === undefined) throw fault('bad pet');
      return { op: 'pet', pet, ...events, ...(idem !== undefined && { idem }) };
    }
    case 'order': {
      const order = decodeOrder(record.order);
      const pet = record.pet === undefined ? undefined : decodePet(record.pet);
      if (order === undefined || (record.pet !== undefined && pet === undefined)) throw fault('bad order');
      return { op: 'order', order, ...(pet !== undefined && { pet }), ...events, ...(idem !== undefined && { idem }) };
    }
    case 'idem': {
      const entry = decodeEntry(record.idem);
      if (entry === undefined) throw fault('bad idem');
      return { op: 'idem', entry };
    }
    default:
      throw fault(`op ${JSON.stringify(record.op)}`);
  }
}

// A torn last record cannot be verified, so it is not applied; but under durability "interval" or
// "never" its change may have been acknowledged, so the ids and event positions it may have assigned
// are not handed out again: they continue after the highest ever written. An order record's id is an
// order id; it records two events (the order's, then its pet's), a pet record one, a test record one.
const TORN_PET_ID = /\{"op":"pet",(?:"at":[0-9]+,"ev":[0-9]+,)?"pet":\{"id":([1-9][0-9]{0,15})[,}]/;
const TORN_ORDER_ID = /\{"op":"order",(?:"at":[0-9]+,"ev":[0-9]+,)?"order":\{"id":([1-9][0-9]{0,15})[,}]/;
const TORN_EVENT = /\{"op":"(pet|order|test)","at":[0-9]+,"ev":([1-9][0-9]{0,15}),/;
const TORN_EVENTS_PER_OP: Readonly<Record<string, number>> = { pet: 1, order: 2, test: 1 };

/** The pet or order id, and the last event position, that the text of a torn record may have assigned, if it can be read. */
export function idsInTornRecord(text: string): { petId?: number; orderId?: number; lastEventSeq?: number } {
  const event = TORN_EVENT.exec(text);
  const events =
    event === null ? {} : { lastEventSeq: Number(event[2]) + (TORN_EVENTS_PER_OP[event[1] as string] as number) - 1 };
  const petId = TORN_PET_ID.exec(text)?.[1];
  if (petId !== undefined) return { petId: Number(petId), ...events };
  const orderId = TORN_ORDER_ID.exec(text)?.[1];
  return orderId === undefined ? events : { orderId: Number(orderId), ...events };
}
