// The journal records of webhooks (docs/events.md). Events themselves ride in the pet and order records
// of the change they describe (records.ts); these are the other changes, each one record:
//   {"op":"sub","sub":SUBSCRIPTION[,"idem":ENTRY]}                  a subscription added or changed, whole
//   {"op":"unsub","id":ID}                                           deleted, with its deliveries and attempts
//   {"op":"test","at":MS,"ev":SEQ,"sub":ID[,"idem":ENTRY]}           a test event and its one delivery
//   {"op":"redeliver","at":MS,"event":SEQ,"subs":[ID…][,"idem":…]}  new deliveries of one event
//   {"op":"recover","at":MS,"sub":ID,"events":[SEQ…][,"idem":…]}    new deliveries of the events listed
//   {"op":"att","seq":N,"sub":SUB,"ev":SEQ,ATTEMPT[,"current":false][,"failingSince":MS]
//    [,"disable":REASON]}                                           an attempt and what follows it
//   {"op":"drop","sub":ID,"event":SEQ}                               a delivery let go without an attempt
//   {"op":"purge","before":MS}                                       events (and attempts) forgotten
// and the kinds only a compaction writes, for what the changes above left:
//   {"op":"seqs","firstEvent":…,"nextEvent":…,"nextSubscription":…,"nextAttempt":…}
//   {"op":"event","seq":SEQ,"at":MS,"type":TYPE,"data":DATA}         a retained event (data last, read by slicing)
//   {"op":"pending","sub":ID,"rows":[[SEQ,ATTEMPTS,NEXT_MS]…]}       pending deliveries
//   {"op":"delivered","sub":ID,"ranges":[[FIRST,LAST]…]}             events delivered to a subscription
//   {"op":"kept-att","seq":N,"sub":SUB,"ev":SEQ,ATTEMPT[,"dropped":MS]} a retained attempt ("dropped":
//                                                                    the next attempt's time a disable took back)
// Times are whole ms since the epoch; ENTRY is a remembered Idempotency-Key answer with its body; SUB
// is a subscription's position (its seq, which never changes), shorter than its id. ATTEMPT is what the
// attempt came to, not its JSON, which is rendered when it is listed (attempt-json.ts):
//   "id":ATT_ID,"at":MS,"ms":DURATION,"status":STATUS|null[,"error":TEXT][,"response":TEXT]
//   [,"next":MS][,"delivered":false]
// with "next" the next attempt's time when there is one, and "error" the transport's reason when it
// gave one. A field left out has its usual value (none, true), so that the attempt of a delivery that
// succeeds at once, the common one, is 110 to 130 bytes. Records of earlier releases are still read:
//   {"op":"attempt","seq":N,"sub":ID,"event":SEQ,"id":…,"json":…,"current":…,"next":MS|null,
//    "delivered":…,"failingSince":MS|null[,"disable":REASON]}
//   {"op":"kept-attempt","seq":N,"sub":ID,"event":SEQ,"id":…,"json":…}
// An attempt read from them keeps its JSON, and a compaction writes it in its old form again. Reading
// the records back: webhook-record-decoder.ts.
import type { DeliveredEventType } from '../../events/event.js';
import type { AttemptFacts } from '../attempt-json.js';
import type { Subscription } from '../webhook-store.js';
import type { IdempotencyEntry } from './idempotency-table.js';
import { entryJson } from './record-fields.js';

export type WebhookChange =
  | { op: 'sub'; subscription: Subscription; remember?: IdempotencyEntry }
  | { op: 'unsub'; id: string }
  | { op: 'test'; atMs: number; seq: number; subscriptionId: string; remember?: IdempotencyEntry }
  | { op: 'redeliver'; atMs: number; eventSeq: number; subscriptionIds: string[]; remember?: IdempotencyEntry }
  | { op: 'recover'; atMs: number; subscriptionId: string; eventSeqs: number[]; remember?: IdempotencyEntry }
  | AttemptChange
  | { op: 'drop'; subscriptionId: string; eventSeq: number }
  | { op: 'purge'; beforeMs: number }
  | { op: 'seqs'; firstEvent: number; nextEvent: number; nextSubscription: number; nextAttempt: number }
  | { op: 'event'; seq: number; atMs: number; type: DeliveredEventType; dataJson: string }
  | { op: 'pending'; subscriptionId: string; rows: Array<[number, number, number]> }
  | { op: 'delivered'; subscriptionId: string; ranges: Array<[number, number]> }
  | KeptAttemptChange;

/** An attempt as the records of earlier releases hold it: its JSON, rendered when it was made. */
export interface RenderedAttempt {
  readonly id: string;
  readonly json: string;
}

/** What the record of an attempt holds of it: its facts, or (records of earlier releases) its JSON. */
export type RecordedAttempt = AttemptFacts | RenderedAttempt;

/** Whether `attempt` was read from a record of an earlier release. */
export const isRenderedAttempt = (attempt: RecordedAttempt): attempt is RenderedAttempt => 'json' in attempt;

/** An attempt and what follows it; `current` says whether it was made on the delivery pending now. */
export interface AttemptChange {
  op: 'attempt';
  seq: number;
  /** The subscription by its position (seq); by its id in records of earlier releases. */
  subscription: number | string;
  eventSeq: number;
  attempt: RecordedAttempt;
  current: boolean;
  nextAttemptAtMs: number | null;
  delivered: boolean;
  failingSinceMs: number | null;
  disableReason?: string;
}

/** An attempt retained, as a compaction writes it; `delivered` and `nextAttemptAtMs` as its JSON shows them. */
export interface KeptAttemptChange {
  op: 'kept-attempt';
  seq: number;
  /** The subscription by its position (seq); by its id in records of earlier releases. */
  subscription: number | string;
  eventSeq: number;
  attempt: RecordedAttempt;
  delivered: boolean;
  nextAttemptAtMs: number | null;
  /** The next attempt's time that a disable took back while it may have been under way (attempt-log.ts). */
  droppedNextAttemptAtMs?: number;
}

export const WEBHOOK_OPS: ReadonlySet<string> = new Set([
  'sub',
  'unsub',
  'test',
  'redeliver',
  'recover',
  'attempt',
  'drop',
  'purge',
  'seqs',
  'event',
  'pending',
  'delivered',
  'kept-attempt',
  'att',
  'kept-att',
]);

const idem = (entry: IdempotencyEntry | undefined): string =>
  entry === undefined ? '' : `,"idem":${entryJson(entry)}`;

function subscriptionJson(subscription: Subscription): string {
  const { seq, id, ownerKeyId, url, events, description, status, disabledReason, createdAt, secrets } = subscription;
  return JSON.stringify({
    seq,
    id,
    ownerKeyId,
    url,
    events,
    description,
    status,
    disabledReason,
    createdAt,
    secrets: secrets.map(({ secret, expiresAtMs }) => ({ secret, expiresAtMs })),
    failingSinceMs: subscription.failingSinceMs,
  });
}

/** The record text of a webhook change. */
export function encodeWebhookChange(change: WebhookChange): string {
  switch (change.op) {
    case 'sub':
      return `{"op":"sub","sub":${subscriptionJson(change.subscription)}${idem(change.remember)}}`;
    case 'unsub':
      return JSON.stringify({ op: 'unsub', id: change.id });
    case 'test':
      return `{"op":"test","at":${change.atMs},"ev":${change.seq},"sub":${JSON.stringify(change.subscriptionId)}${idem(change.remember)}}`;
    case 'redeliver':
      return `{"op":"redeliver","at":${change.atMs},"event":${change.eventSeq},"subs":${JSON.stringify(change.subscriptionIds)}${idem(change.remember)}}`;
    case 'recover':
      return `{"op":"recover","at":${change.atMs},"sub":${JSON.stringify(change.subscriptionId)},"events":${JSON.stringify(change.eventSeqs)}${idem(change.remember)}}`;
    case 'attempt': {
      const { attempt } = change;
      if (isRenderedAttempt(attempt)) return oldAttemptRecord(change, attempt);
      return `{"op":"att",${attemptFields(change.seq, change.subscription, change.eventSeq, attempt, change.delivered, change.nextAttemptAtMs)}${change.current ? '' : ',"current":false'}${change.failingSinceMs === null ? '' : `,"failingSince":${change.failingSinceMs}`}${change.disableReason === undefined ? '' : `,"disable":${JSON.stringify(change.disableReason)}`}}`;
    }
    case 'drop':
      return JSON.stringify({ op: 'drop', sub: change.subscriptionId, event: change.eventSeq });
    case 'purge':
      return `{"op":"purge","before":${change.beforeMs}}`;
    case 'seqs':
      return `{"op":"seqs","firstEvent":${change.firstEvent},"nextEvent":${change.nextEvent},"nextSubscription":${change.nextSubscription},"nextAttempt":${change.nextAttempt}}`;
    case 'event':
      return `${EVENT_RECORD_PREFIX}${change.seq},"at":${change.atMs},"type":"${change.type}","data":${change.dataJson}}`;
    case 'pending':
      return JSON.stringify({ op: 'pending', sub: change.subscriptionId, rows: change.rows });
    case 'delivered':
      return JSON.stringify({ op: 'delivered', sub: change.subscriptionId, ranges: change.ranges });
    case 'kept-attempt': {
      const { attempt } = change;
      if (isRenderedAttempt(attempt))
        return JSON.stringify({
          op: 'kept-attempt',
          seq: change.seq,
          sub: change.subscription,
          event: change.eventSeq,
          id: attempt.id,
          json: attempt.json,
        });
      const dropped = change.droppedNextAttemptAtMs === undefined ? '' : `,"dropped":${change.droppedNextAttemptAtMs}`;
      return `{"op":"kept-att",${attemptFields(change.seq, change.subscription, change.eventSeq, attempt, change.delivered, change.nextAttemptAtMs)}${dropped}}`;
    }
  }
}

/** The fields an attempt's record and its retained record share (see the module comment). */
function attemptFields(
  seq: number,
  subscription: number | string,
  eventSeq: number,
  attempt: AttemptFacts,
  delivered: boolean,
  nextAttemptAtMs: number | null,
): string {
  const { id, attemptedAtMs, durationMs, status, error, response } = attempt;
  return (
    `"seq":${seq},"sub":${JSON.stringify(subscription)},"ev":${eventSeq},"id":${JSON.stringify(id)},` +
    `"at":${attemptedAtMs},"ms":${durationMs},"status":${status}` +
    (error === null ? '' : `,"error":${JSON.stringify(error)}`) +
    (response === null ? '' : `,"response":${JSON.stringify(response)}`) +
    (nextAttemptAtMs === null ? '' : `,"next":${nextAttemptAtMs}`) +
    (delivered ? '' : ',"delivered":false')
  );
}

/** An attempt read from a record of an earlier release, written in that form again. */
function oldAttemptRecord(change: AttemptChange, attempt: RenderedAttempt): string {
  return JSON.stringify({
    op: 'attempt',
    seq: change.seq,
    sub: change.subscription,
    event: change.eventSeq,
    id: attempt.id,
    json: attempt.json,
    current: change.current,
    next: change.nextAttemptAtMs,
    delivered: change.delivered,
    failingSince: change.failingSinceMs,
    ...(change.disableReason !== undefined && { disable: change.disableReason }),
  });
}

/** How an event record begins; the rest is read without parsing its data (record-fast-path.ts). */
export const EVENT_RECORD_PREFIX = '{"op":"event","seq":';
