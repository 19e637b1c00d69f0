// The names of the events the service records and delivers, as TypeBox schemas: the four that a
// subscription may ask for, and `webhook.test`, which only the test operation sends (to the one
// subscription it names) and which no subscription can list. Names are full-stop delimited,
// resource then change, as the Standard Webhooks specification 1.0.0 recommends ("Event types").
import Type from 'typebox';

/** The event types a subscription may list, in the order the API documents them. */
export const SUBSCRIBABLE_EVENT_TYPES = ['pet.created', 'pet.updated', 'order.created', 'order.updated'] as const;

/** The type of the event sent by a subscription's test operation. */
export const TEST_EVENT_TYPE = 'webhook.test';

/** Every event type that can be delivered. */
export const EVENT_TYPES = [...SUBSCRIBABLE_EVENT_TYPES, TEST_EVENT_TYPE] as const;

export const SubscribableEventType = Type.Enum(SUBSCRIBABLE_EVENT_TYPES, {
  description:
    'An event type a subscription can receive: pet.created, pet.updated (its status moved, through an order), ' +
    'order.created, order.updated (delivered or cancelled).',
});
export type SubscribableEventType = Type.Static<typeof SubscribableEventType>;

export const EventType = Type.Enum(EVENT_TYPES, {
  description: 'The type of a delivered event: a subscribable type, or webhook.test from the test operation.',
});
export type EventType = Type.Static<typeof EventType>;

const SUBSCRIBABLE = new Set<string>(SUBSCRIBABLE_EVENT_TYPES);

/** Whether `name` is an event type a subscription may list (`webhook.test` is not). */
export function isSubscribableEventType(name: string): name is SubscribableEventType {
  return SUBSCRIBABLE.has(name);
}
