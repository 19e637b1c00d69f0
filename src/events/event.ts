// Events: what the service records of every change of an animal or an order, and delivers to the
// webhooks that subscribe to it (docs/events.md). An event is `{"id", "type", "timestamp", "data"}`:
// `data` is the whole pet or order as the API answers it after the change. Like pets and orders, an
// event is kept as its JSON text, made once when it is recorded, so reading or sending it joins ready
// strings. Which events a change records is decided here, once, for every store.
import Type from 'typebox';

/** The types a subscription can ask for. */
export const EVENT_TYPES = ['pet.created', 'pet.updated', 'order.created', 'order.updated'] as const;
export const EventType = Type.Enum(EVENT_TYPES, { description: 'The type of an event: what changed, and how.' });
export type EventType = Type.Static<typeof EventType>;

/** The type of the event that `POST /webhooks/{id}/test` sends to one subscription; never subscribed to, never listed. */
export const TEST_EVENT_TYPE = 'webhook.test';
/** Any type an event delivered to a receiver may have. */
export type DeliveredEventType = EventType | typeof TEST_EVENT_TYPE;

/** A recorded event: its place in the order of recording, its id, type, time and JSON text. */
export interface StoredEvent {
  /** Position in the order events were recorded (1, 2, 3, … on the embedded store); internal, never shown. */
  readonly seq: number;
  readonly id: string;
  readonly type: DeliveredEventType;
  /** When the change happened, in ms since the epoch (the `timestamp` field, RFC 3339 UTC). */
  readonly timestampMs: number;
  /** `{"id","type","timestamp","data"}` in that key order, as delivered and as `GET /events/{id}` answers. */
  readonly json: string;
}

/** An event's JSON in the key order of the contract: id, type, timestamp, data (`dataJson` is ready JSON). */
export function eventJson(id: string, type: DeliveredEventType, timestampMs: number, dataJson: string): string {
  return `{"id":"${id}","type":"${type}","timestamp":"${new Date(timestampMs).toISOString()}","data":${dataJson}}`;
}

/** The events a change records, in order, each with the JSON of its `data`. */
export interface EventDraft {
  type: EventType;
  dataJson: string;
}

/** A pet created: `pet.created`. */
export const petCreatedEvents = (petJson: string): EventDraft[] => [{ type: 'pet.created', dataJson: petJson }];

/**
 * An order placed: `order.created`, then `pet.updated` for its pet (now pending). An order moved on:
 * `order.updated`, then `pet.updated` (sold, or available again).
 */
export const orderEvents = (placed: boolean, orderJson: string, petJson: string): EventDraft[] => [
  { type: placed ? 'order.created' : 'order.updated', dataJson: orderJson },
  { type: 'pet.updated', dataJson: petJson },
];
