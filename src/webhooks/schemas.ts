// Webhooks and events as TypeBox schemas: the same objects validate requests (validate.ts) and describe
// the API (the OpenAPI document's paths and its `webhooks`); the TypeScript types flow from them.
import Type from 'typebox';
import { EventType } from '../events/event.js';

/** The longest subscription URL, in characters: longer ones are refused rather than stored. */
export const MAX_URL_CHARACTERS = 2048;
/** The longest description, in Unicode code points. */
export const MAX_DESCRIPTION_CODE_POINTS = 500;

export const WEBHOOK_STATUSES = ['enabled', 'disabled'] as const;
export const WebhookStatus = Type.Enum(WEBHOOK_STATUSES, {
  description: 'Whether events are delivered to the subscription.',
});
export type WebhookStatus = Type.Static<typeof WebhookStatus>;

const Url = Type.String({
  minLength: 1,
  maxLength: MAX_URL_CHARACTERS,
  format: 'uri',
  description: 'Absolute http or https URL that receives the events; no credentials, no fragment.',
});
const Events = Type.Array(EventType, {
  minItems: 1,
  uniqueItems: true,
  maxItems: 4,
  description: 'The event types delivered to this subscription, without repeats.',
});
const Description = Type.String({
  minLength: 0,
  maxLength: MAX_DESCRIPTION_CODE_POINTS,
  description: 'Free text for the subscription, for its owner.',
});
/** A description or null: as the API shows one never given, and as a client may send it back. */
const DescriptionOrNull = Type.Union([Description, Type.Null()]);
const Time = (description: string) => Type.String({ format: 'date-time', description });

export const NewWebhook = Type.Object(
  // null is taken as left out, so that a client may send back the description the API shows it.
  { url: Url, events: Events, description: Type.Optional(DescriptionOrNull) },
  { additionalProperties: false, description: 'A subscription to make.' },
);
export type NewWebhook = Type.Static<typeof NewWebhook>;

export const WebhookUpdate = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    description: Type.Optional(DescriptionOrNull),
    status: Type.Optional(WebhookStatus),
  },
  { additionalProperties: false, description: 'Changes to a subscription; members left out stay as they are.' },
);
export type WebhookUpdate = Type.Static<typeof WebhookUpdate>;

const webhookProperties = {
  id: Type.String({ pattern: '^wh_', description: 'Unique identifier: `wh_` and a unique string.' }),
  url: Url,
  events: Events,
  description: DescriptionOrNull,
  status: WebhookStatus,
  disabledReason: Type.Union([Type.String(), Type.Null()], {
    description: 'Why the subscription was disabled; null while it is enabled.',
  }),
  createdAt: Time('When the subscription was made (RFC 3339, UTC).'),
};

export const Webhook = Type.Object(webhookProperties, {
  additionalProperties: false,
  description: 'A subscription to events.',
});
export type Webhook = Type.Static<typeof Webhook>;
export const Webhooks = Type.Array(Webhook, { description: 'A page of subscriptions, in creation order.' });

export const WebhookWithSecret = Type.Object(
  {
    ...webhookProperties,
    secret: Type.String({
      pattern: '^whsec_',
      description: 'The signing secret (`whsec_` and base64 of 32 bytes); shown only on creation and rotation.',
    }),
  },
  { additionalProperties: false, description: 'A subscription with its signing secret.' },
);
export type WebhookWithSecret = Type.Static<typeof WebhookWithSecret>;

export const Event = Type.Object(
  {
    id: Type.String({ pattern: '^evt_', description: 'Unique identifier, the same as the webhook-id header.' }),
    type: Type.String({ description: 'What changed: pet.created, pet.updated, order.created, order.updated.' }),
    timestamp: Time('When the change happened (RFC 3339, UTC).'),
    data: Type.Object({}, { additionalProperties: true, description: 'The Pet or Order after the change.' }),
  },
  { additionalProperties: false, description: 'A change of an animal or an order.' },
);
export type Event = Type.Static<typeof Event>;
export const EventList = Type.Array(Event, { description: 'A page of events, in the order they were recorded.' });

export const Attempt = Type.Object(
  {
    id: Type.String({ pattern: '^att_', description: 'Unique identifier of the attempt.' }),
    eventId: Type.String({ pattern: '^evt_' }),
    type: Type.String({ description: 'The event type.' }),
    attemptedAt: Time('When the attempt started (RFC 3339, UTC).'),
    status: Type.Union([Type.Integer(), Type.Null()], { description: "The receiver's HTTP status, or null." }),
    error: Type.Union([Type.String(), Type.Null()], { description: 'Why the attempt failed, or null.' }),
    durationMs: Type.Integer({ minimum: 0, description: 'How long the attempt took, in milliseconds.' }),
    nextAttemptAt: Type.Union([
      Time(
        'When the next attempt of this event is due; null once none will be made (delivered, given up, or its subscription disabled).',
      ),
      Type.Null(),
    ]),
    response: Type.Union([Type.String(), Type.Null()], {
      description: "The first 1 KiB of the receiver's answer as text, or null.",
    }),
  },
  { additionalProperties: false, description: 'One attempt to deliver an event to a subscription.' },
);
export type Attempt = Type.Static<typeof Attempt>;
export const Attempts = Type.Array(Attempt, { description: 'A page of attempts, newest first.' });

export const Redelivery = Type.Object(
  {
    webhookId: Type.Optional(
      Type.String({ description: 'Deliver to this subscription only; otherwise to every enabled one of the type.' }),
    ),
  },
  { additionalProperties: false, description: 'A new delivery of an event.' },
);
export type Redelivery = Type.Static<typeof Redelivery>;

export const Recovery = Type.Object(
  { since: Time('Deliver again every event since this time whose delivery did not succeed.') },
  { additionalProperties: false, description: 'A recovery of missed events.' },
);
export type Recovery = Type.Static<typeof Recovery>;

export const RecoveryAnswer = Type.Object(
  {
    webhookId: webhookProperties.id,
    since: Time('The time given.'),
    events: Type.Integer({ minimum: 0, description: 'How many events are being delivered again.' }),
  },
  { additionalProperties: false, description: 'A recovery under way.' },
);
export type RecoveryAnswer = Type.Static<typeof RecoveryAnswer>;

const pageQuery = {
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Maximum number of items returned.' }),
  ),
  cursor: Type.Optional(Type.String({ description: 'Opaque cursor from the `Link` header of the previous page.' })),
};
export const ListWebhooksQuery = Type.Object(pageQuery);
export type ListWebhooksQuery = Type.Static<typeof ListWebhooksQuery>;
export const ListEventsQuery = Type.Object({ ...pageQuery, type: Type.Optional(EventType) });
export type ListEventsQuery = Type.Static<typeof ListEventsQuery>;
