// The journal records of webhooks read back (their format and writing: webhook-records.ts): a parsed
// record checked field by field and turned into its change, or a string saying what is wrong with it,
// which records.ts turns into the error naming the record. Records of earlier releases are read too.
// Decoding is a pure function.
import { EVENT_TYPES, type EventType } from '../../events/event.js';
import type { AttemptFacts } from '../attempt-json.js';
import type { Subscription, SubscriptionSecret } from '../webhook-store.js';
import { decodeEntry, isId, isObject, isTime, type Json } from './record-fields.js';
import type { RenderedAttempt, WebhookChange } from './webhook-records.js';

const isText = (value: unknown): value is string => typeof value === 'string';
const isTimeOrNull = (value: unknown): value is number | null => value === null || isTime(value);
const isSeqList = (value: unknown): value is number[] => Array.isArray(value) && value.every(isId);
const isRows = (value: unknown, width: number): boolean =>
  Array.isArray(value) &&
  value.every((row) => Array.isArray(row) && row.length === width && row.every((cell) => isTime(cell)));

function decodeSecret(value: unknown): SubscriptionSecret | undefined {
  if (!isObject(value) || !isText(value.secret) || !isTimeOrNull(value.expiresAtMs)) return undefined;
  return { secret: value.secret, expiresAtMs: value.expiresAtMs };
}

function decodeSubscription(value: unknown): Subscription | undefined {
  if (!isObject(value)) return undefined;
  const { seq, id, ownerKeyId, url, events, description, status, disabledReason, createdAt, secrets } = value;
  const decodedSecrets = Array.isArray(secrets) ? secrets.map(decodeSecret) : [];
  if (
    !isId(seq) ||
    !isText(id) ||
    !isText(ownerKeyId) ||
    !isText(url) ||
    !Array.isArray(events) ||
    !events.every((type) => EVENT_TYPES.includes(type as EventType)) ||
    (description !== null && !isText(description)) ||
    (status !== 'enabled' && status !== 'disabled') ||
    (disabledReason !== null && !isText(disabledReason)) ||
    !isText(createdAt) ||
    !Array.isArray(secrets) ||
    decodedSecrets.includes(undefined) ||
    !isTimeOrNull(value.failingSinceMs)
  )
    return undefined;
  return {
    seq,
    id,
    ownerKeyId,
    url,
    events: events as EventType[],
    description,
    status,
    disabledReason,
    createdAt,
    secrets: decodedSecrets as SubscriptionSecret[],
    failingSinceMs: value.failingSinceMs,
  };
}

const isStatus = (value: unknown): value is number | null =>
  value === null || (Number.isSafeInteger(value) && (value as number) >= 0);

/** What every attempt record of an earlier release holds (its JSON, rendered), or undefined when wrong. */
function decodeRenderedAttempt(
  record: Json,
): { seq: number; subscription: string; eventSeq: number; attempt: RenderedAttempt } | undefined {
  const { seq, sub, event, id, json } = record;
  if (!isId(seq) || !isText(sub) || !isId(event) || !isText(id) || !isText(json)) return undefined;
  return { seq, subscription: sub, eventSeq: event, attempt: { id, json } };
}

/** The fields `attemptFields` wrote, or undefined when one is missing or wrong. */
function decodeAttemptFields(record: Json):
  | {
      seq: number;
      subscription: number;
      eventSeq: number;
      attempt: AttemptFacts;
      delivered: boolean;
      nextAttemptAtMs: number | null;
    }
  | undefined {
  const { seq, sub, ev, id, at, ms, status, error, response, next, delivered } = record;
  if (
    !isId(seq) ||
    !isId(sub) ||
    !isId(ev) ||
    !isText(id) ||
    !isTime(at) ||
    !isTime(ms) ||
    !isStatus(status) ||
    (error !== undefined && !isText(error)) ||
    (response !== undefined && !isText(response)) ||
    (next !== undefined && !isTime(next)) ||
    (delivered !== undefined && delivered !== false)
  )
    return undefined;
  return {
    seq,
    subscription: sub,
    eventSeq: ev,
    attempt: { id, attemptedAtMs: at, status, error: error ?? null, durationMs: ms, response: response ?? null },
    delivered: delivered === undefined,
    nextAttemptAtMs: next ?? null,
  };
}

/** A parsed webhook record's change, or a string saying what is wrong with it. */
export function decodeWebhookChange(record: Json): WebhookChange | string {
  const remember = record.idem === undefined ? undefined : decodeEntry(record.idem);
  if (record.idem !== undefined && remember === undefined) return 'bad idem';
  const withRemember = remember === undefined ? {} : { remember };
  switch (record.op) {
    case 'sub': {
      const subscription = decodeSubscription(record.sub);
      return subscription === undefined ? 'bad subscription' : { op: 'sub', subscription, ...withRemember };
    }
    case 'unsub':
      return isText(record.id) ? { op: 'unsub', id: record.id } : 'bad id';
    case 'test':
      if (!isTime(record.at) || !isId(record.ev) || !isText(record.sub)) return 'bad test';
      return { op: 'test', atMs: record.at, seq: record.ev, subscriptionId: record.sub, ...withRemember };
    case 'redeliver':
      if (!isTime(record.at) || !isId(record.event) || !Array.isArray(record.subs) || !record.subs.every(isText))
        return 'bad redeliver';
      return {
        op: 'redeliver',
        atMs: record.at,
        eventSeq: record.event,
        subscriptionIds: record.subs,
        ...withRemember,
      };
    case 'recover':
      if (!isTime(record.at) || !isText(record.sub) || !isSeqList(record.events)) return 'bad recover';
      return { op: 'recover', atMs: record.at, subscriptionId: record.sub, eventSeqs: record.events, ...withRemember };
    case 'attempt': {
      const { current, next, delivered, failingSince, disable } = record;
      const rendered = decodeRenderedAttempt(record);
      if (
        rendered === undefined ||
        typeof current !== 'boolean' ||
        !isTimeOrNull(next) ||
        typeof delivered !== 'boolean' ||
        !isTimeOrNull(failingSince) ||
        (disable !== undefined && !isText(disable))
      )
        return 'bad attempt';
      return {
        op: 'attempt',
        ...rendered,
        current,
        nextAttemptAtMs: next,
        delivered,
        failingSinceMs: failingSince,
        ...(disable !== undefined && { disableReason: disable }),
      };
    }
    case 'att': {
      const { current, failingSince, disable } = record;
      const fields = decodeAttemptFields(record);
      if (
        fields === undefined ||
        (current !== undefined && current !== false) ||
        (failingSince !== undefined && !isTime(failingSince)) ||
        (disable !== undefined && !isText(disable))
      )
        return 'bad att';
      return {
        op: 'attempt',
        ...fields,
        current: current === undefined,
        failingSinceMs: failingSince ?? null,
        ...(disable !== undefined && { disableReason: disable }),
      };
    }
    case 'drop':
      return isText(record.sub) && isId(record.event)
        ? { op: 'drop', subscriptionId: record.sub, eventSeq: record.event }
        : 'bad drop';
    case 'purge':
      return isTime(record.before) ? { op: 'purge', beforeMs: record.before } : 'bad purge';
    case 'seqs': {
      const { firstEvent, nextEvent, nextSubscription, nextAttempt } = record;
      if (!isId(firstEvent) || !isId(nextEvent) || !isId(nextSubscription) || !isId(nextAttempt)) return 'bad seqs';
      return { op: 'seqs', firstEvent, nextEvent, nextSubscription, nextAttempt };
    }
    case 'pending':
      return isText(record.sub) && isRows(record.rows, 3)
        ? { op: 'pending', subscriptionId: record.sub, rows: record.rows as Array<[number, number, number]> }
        : 'bad pending';
    case 'delivered':
      return isText(record.sub) && isRows(record.ranges, 2)
        ? { op: 'delivered', subscriptionId: record.sub, ranges: record.ranges as Array<[number, number]> }
        : 'bad delivered';
    case 'kept-attempt': {
      const rendered = decodeRenderedAttempt(record);
      return rendered === undefined
        ? 'bad kept-attempt'
        : { op: 'kept-attempt', ...rendered, delivered: false, nextAttemptAtMs: null };
    }
    case 'kept-att': {
      const fields = decodeAttemptFields(record);
      const { dropped } = record;
      if (fields === undefined || (dropped !== undefined && !isTime(dropped))) return 'bad kept-att';
      return { op: 'kept-attempt', ...fields, ...(dropped !== undefined && { droppedNextAttemptAtMs: dropped }) };
    }
    default:
      return `op ${JSON.stringify(record.op)}`;
  }
}
