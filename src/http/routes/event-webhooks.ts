// The requests this service sends to subscribers, one per event type, for the OpenAPI document's
// top-level `webhooks` (OpenAPI 3.1 §4.8.1): the event as the body, the Standard Webhooks headers, and
// what the receiver's answers mean (docs/events.md "Delivery").
import Type, { type TSchema } from 'typebox';
import { type DeliveredEventType, EVENT_TYPES, TEST_EVENT_TYPE } from '../../events/event.js';
import { Order } from '../../orders/schemas.js';
import { Pet } from '../../pets/schemas.js';
import type { WebhookDescription } from '../openapi/document.js';
import type { Parameter } from '../openapi/operation.js';
import { EXAMPLES } from './webhook-examples.js';

const SIGNATURE_HEADERS: Parameter[] = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: "The event's id: the same on every attempt; receivers de-duplicate on it.",
    schema: Type.String({ pattern: '^evt_' }),
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Unix seconds of this attempt; refuse one far from your clock (Standard Webhooks suggests 5 minutes).',
    schema: Type.String({ pattern: '^[0-9]+$' }),
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      '`v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` with each secret in force, space-separated (Standard Webhooks v1).',
    schema: Type.String({ pattern: '^v1,' }),
  },
];

const SUBSCRIBERS = 'Sent to every enabled webhook subscribed to this type.';
const ANSWER = 'Answer 2xx within 10 seconds; anything else is retried on the schedule, and 410 disables the webhook.';

const TEST_DATA = Type.Object(
  { webhookId: Type.String({ pattern: '^wh_', description: 'The webhook the test was asked for.' }) },
  { additionalProperties: false },
);

/** Each event type's summary, data and, where it is not every subscriber of the type, whom it is sent to. */
const WHAT: Record<DeliveredEventType, { summary: string; data: TSchema; dataName: string; sentTo?: string }> = {
  'pet.created': { summary: 'An animal was created', data: Pet, dataName: 'the Pet' },
  'pet.updated': {
    summary: "An animal's status moved (an order was placed, delivered or cancelled)",
    data: Pet,
    dataName: 'the Pet after the change',
  },
  'order.created': { summary: 'An order was placed', data: Order, dataName: 'the Order' },
  'order.updated': {
    summary: 'An order was delivered or cancelled',
    data: Order,
    dataName: 'the Order after the change',
  },
  [TEST_EVENT_TYPE]: {
    summary: 'A test of a webhook, asked for with POST /webhooks/{webhookId}/test',
    data: TEST_DATA,
    dataName: '`{"webhookId"}`',
    sentTo:
      'Sent to the one webhook the test was asked for, whatever its events; never listed in /events, shown in its attempts.',
  },
};

/** The payload schema of events of `type`. */
function eventSchema(type: DeliveredEventType): TSchema {
  return Type.Object(
    {
      id: Type.String({ pattern: '^evt_', description: 'Unique identifier, the same as the webhook-id header.' }),
      type: Type.Literal(type),
      timestamp: Type.String({ format: 'date-time', description: 'When the change happened (RFC 3339, UTC).' }),
      data: WHAT[type].data,
    },
    { additionalProperties: false, description: `A ${type} event: its data is ${WHAT[type].dataName}.` },
  );
}

/** One webhook per event type, the test event's included. */
export function eventWebhooks(): WebhookDescription[] {
  const types: readonly DeliveredEventType[] = [...EVENT_TYPES, TEST_EVENT_TYPE];
  return types.map((type) => ({
    name: type,
    operation: {
      operationId: `${type.replace('.', '_')}_webhook`,
      summary: WHAT[type].summary,
      description: `${WHAT[type].sentTo ?? SUBSCRIBERS} ${ANSWER}`,
      parameters: SIGNATURE_HEADERS,
      requestBody: {
        schema: eventSchema(type),
        mediaTypes: { 'application/json': { example: EXAMPLES.payloads[type] } },
      },
      success: { status: 200, description: 'Received: any 2xx status.' },
      errors: [],
    },
  }));
}
