// The webhook and event routes (docs/events.md), each its handler beside its description in the OpenAPI
// document. Handlers hand the webhook and event services the input as HTTP read it (the services check
// it) with the calling key, and turn their answers into HTTP: 201 with Location, 202, 204, paging headers.
import Type from 'typebox';
import type { Service } from '../../service/service.js';
import {
  Attempts,
  EventList,
  Event as EventSchema,
  ListEventsQuery,
  ListWebhooksQuery,
  NewWebhook,
  Recovery,
  RecoveryAnswer,
  Redelivery,
  Webhook,
  Webhooks,
  WebhookUpdate,
  WebhookWithSecret,
} from '../../webhooks/schemas.js';
import type { JsonPage } from '../../webhooks/webhook-service.js';
import { joinJson, pagingHeaders } from '../list-answer.js';
import { readEventListQuery, readListQuery } from '../list-query.js';
import {
  type ErrorDescription,
  listingHeaders,
  locationHeader,
  type Parameter,
  pathParameter,
  queryParameters,
} from '../openapi/operation.js';
import { type Answer, defineRoute, type Route, type RouteInput } from '../route.js';
import { EXAMPLES } from './webhook-examples.js';

const WEBHOOK_ID = pathParameter('webhookId', Type.String({ pattern: '^wh_' }), 'Identifier of the webhook.');
const EVENT_ID = pathParameter('eventId', Type.String({ pattern: '^evt_' }), 'Identifier of the event.');
const PAGE_PARAMETERS: Parameter[] = queryParameters(ListWebhooksQuery, {
  limit: 'Maximum number of items returned (1 to 100, default 20).',
  cursor: 'Opaque cursor from the Link header of the previous page.',
});

const NOT_FOUND: ErrorDescription = { code: 'not_found', description: 'No webhook of this API key has this id.' };
const BODY_ERRORS: readonly ErrorDescription[] = [
  { code: 'payload_too_large', description: 'The body is larger than the limit.' },
  { code: 'unsupported_media_type', description: 'A non-empty body that is not JSON.' },
];
/** What a request that takes no body may still be refused for: a body sent anyway that is not JSON. */
const UNTAKEN_BODY_ERRORS: readonly ErrorDescription[] = [
  {
    code: 'invalid_json',
    description:
      'A body was sent, and it is not JSON (`invalid_json`), or its Content-Type is repeated (`invalid_header`).',
  },
  ...BODY_ERRORS,
];
const IDEMPOTENCY_CONFLICT = 'the Idempotency-Key was used with another body or is in flight';
/** What a POST without a body of its own may still be refused for: its Idempotency-Key, or a body sent anyway. */
const BODYLESS_POST_ERRORS: readonly ErrorDescription[] = [
  {
    code: 'invalid_header',
    description:
      'The Idempotency-Key is malformed or repeated (`invalid_header`), or a body was sent that is not JSON (`invalid_json`).',
  },
  ...BODY_ERRORS,
];
const QUERY_ERROR: ErrorDescription = {
  code: 'invalid_query',
  description: 'A query parameter has a bad value or is repeated, or the cursor is not valid here.',
};

const webhookIdOf = (input: RouteInput): string => input.params.webhookId ?? '';
const ok = (json: string): Answer => ({ status: 200, body: json });
const accepted = (answer: { json: string }): Answer => ({ status: 202, body: answer.json });

/** A page's answer: the bare array, X-Total-Count, and Link/X-Next to `path` with `filter` while more follow. */
function pageAnswer(page: JsonPage, path: string, filter = ''): Answer {
  const next = page.next === undefined ? undefined : `${path}?limit=${page.limit}${filter}&cursor=${page.next}`;
  return { status: 200, body: joinJson(page.items), headers: pagingHeaders(next, page.total) };
}

/** The routes of webhooks and events. */
export function webhookRoutes(service: Service, basePath: string): Route[] {
  const webhooksPath = `${basePath}/webhooks`;
  const eventsPath = `${basePath}/events`;
  const { webhooks, events } = service;
  return [
    defineRoute({
      method: 'GET',
      path: '/webhooks',
      operation: {
        operationId: 'listWebhooks',
        summary: "List this API key's webhooks",
        description: 'The subscriptions of the calling API key, in creation order, paged like every listing.',
        parameters: PAGE_PARAMETERS,
        success: {
          status: 200,
          description: 'A page of webhooks.',
          headers: listingHeaders('webhooks'),
          body: { schema: Webhooks, example: [EXAMPLES.webhook] },
        },
        errors: [QUERY_ERROR],
      },
      handle: async (input) => pageAnswer(await webhooks.list(input.key.id, readListQuery(input.query)), webhooksPath),
    }),
    defineRoute({
      method: 'POST',
      path: '/webhooks',
      operation: {
        operationId: 'createWebhook',
        summary: 'Subscribe an endpoint to events',
        description:
          'Makes a subscription of the calling API key (at most 20). The answer shows its signing `secret`, which is shown again only on rotation. Safe to retry with an `Idempotency-Key`.',
        acceptsIdempotencyKey: true,
        requestBody: {
          schema: NewWebhook,
          mediaTypes: { 'application/json': { example: EXAMPLES.newWebhook } },
        },
        success: {
          status: 201,
          description: 'The webhook, with its secret.',
          headers: locationHeader('webhook'),
          body: { schema: WebhookWithSecret, example: EXAMPLES.webhookWithSecret },
        },
        errors: [
          {
            code: 'invalid_body',
            description: 'The body is not JSON, breaks the schema, or its url is not one the service may deliver to.',
          },
          { code: 'conflict', description: `This API key has 20 webhooks already, or ${IDEMPOTENCY_CONFLICT}.` },
          ...BODY_ERRORS,
        ],
      },
      handle: async (input) => {
        const created = await webhooks.create(input.key.id, input.body, input.arrival);
        return { status: 201, body: created.json, headers: { location: `${webhooksPath}/${created.id}` } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/webhooks/{webhookId}',
      operation: {
        operationId: 'getWebhook',
        summary: 'Get a webhook',
        description: 'One subscription of the calling API key, without its secret.',
        parameters: [WEBHOOK_ID],
        success: { status: 200, description: 'The webhook.', body: { schema: Webhook, example: EXAMPLES.webhook } },
        errors: [NOT_FOUND],
      },
      handle: async (input) => ok(await webhooks.get(input.key.id, webhookIdOf(input))),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/webhooks/{webhookId}',
      operation: {
        operationId: 'updateWebhook',
        summary: 'Change, disable or enable a webhook',
        description:
          'Changes the members given. Disabling drops its pending deliveries: events recorded while it is disabled are not sent when it is enabled again (recover sends them).',
        parameters: [WEBHOOK_ID],
        requestBody: {
          schema: WebhookUpdate,
          mediaTypes: {
            'application/json': { example: { status: 'disabled' } },
            'application/merge-patch+json': { example: { events: ['pet.created'] } },
          },
        },
        success: {
          status: 200,
          description: 'The webhook, changed.',
          body: { schema: Webhook, example: EXAMPLES.webhook },
        },
        errors: [
          { code: 'invalid_body', description: 'The body is not JSON or breaks the schema.' },
          NOT_FOUND,
          ...BODY_ERRORS,
        ],
      },
      handle: async (input) => ok(await webhooks.update(input.key.id, webhookIdOf(input), input.body)),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/webhooks/{webhookId}',
      operation: {
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook',
        description: 'Deletes the subscription, its pending deliveries and its attempts.',
        parameters: [WEBHOOK_ID],
        success: { status: 204, description: 'Deleted.' },
        errors: [NOT_FOUND, ...UNTAKEN_BODY_ERRORS],
      },
      handle: async (input) => {
        await webhooks.delete(input.key.id, webhookIdOf(input));
        return { status: 204, body: '' };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/webhooks/{webhookId}/rotate-secret',
      operation: {
        operationId: 'rotateWebhookSecret',
        summary: "Rotate a webhook's signing secret",
        description:
          'Makes a new secret and shows it; the one it replaces goes on signing beside it for 24 hours, so a receiver can switch at its own pace.',
        parameters: [WEBHOOK_ID],
        acceptsIdempotencyKey: true,
        success: {
          status: 200,
          description: 'The webhook, with its new secret.',
          body: { schema: WebhookWithSecret, example: EXAMPLES.webhookWithSecret },
        },
        errors: [NOT_FOUND, { code: 'conflict', description: `The ${IDEMPOTENCY_CONFLICT}.` }, ...BODYLESS_POST_ERRORS],
      },
      handle: async (input) => {
        return ok((await webhooks.rotateSecret(input.key.id, webhookIdOf(input), input.arrival)).json);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/webhooks/{webhookId}/test',
      operation: {
        operationId: 'testWebhook',
        summary: 'Send a test event to a webhook',
        description:
          'Sends a `webhook.test` event (`data` `{"webhookId"}`) to this webhook whatever its `events`, retried like any other; it shows in its attempts, not in `/events`.',
        parameters: [WEBHOOK_ID],
        acceptsIdempotencyKey: true,
        success: {
          status: 202,
          description: 'The test event, queued for delivery.',
          body: { schema: EventSchema, example: EXAMPLES.testEvent },
        },
        errors: [
          NOT_FOUND,
          { code: 'conflict', description: `The webhook is disabled, or ${IDEMPOTENCY_CONFLICT}.` },
          ...BODYLESS_POST_ERRORS,
        ],
      },
      handle: async (input) => accepted(await webhooks.test(input.key.id, webhookIdOf(input), input.arrival)),
    }),
    defineRoute({
      method: 'GET',
      path: '/webhooks/{webhookId}/attempts',
      operation: {
        operationId: 'listWebhookAttempts',
        summary: "List a webhook's delivery attempts",
        description: 'Every attempt to deliver to this webhook, newest first, paged like every listing.',
        parameters: [WEBHOOK_ID, ...PAGE_PARAMETERS],
        success: {
          status: 200,
          description: 'A page of attempts.',
          headers: listingHeaders('attempts'),
          body: { schema: Attempts, example: [EXAMPLES.attempt] },
        },
        errors: [QUERY_ERROR, NOT_FOUND],
      },
      handle: async (input) => {
        const id = webhookIdOf(input);
        const page = await webhooks.attempts(input.key.id, id, readListQuery(input.query));
        return pageAnswer(page, `${webhooksPath}/${id}/attempts`);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/webhooks/{webhookId}/recover',
      operation: {
        operationId: 'recoverWebhook',
        summary: 'Deliver again the events a webhook missed',
        description:
          'Every event of its types recorded since `since` whose delivery to it did not succeed is delivered again, at once, with the whole retry schedule: one still waiting for a retry is sent now instead.',
        parameters: [WEBHOOK_ID],
        acceptsIdempotencyKey: true,
        requestBody: {
          schema: Recovery,
          mediaTypes: { 'application/json': { example: { since: '2026-11-25T00:00:00Z' } } },
        },
        success: {
          status: 202,
          description: 'How many events are being delivered again.',
          body: { schema: RecoveryAnswer, example: EXAMPLES.recovery },
        },
        errors: [
          { code: 'invalid_body', description: 'The body is not JSON or `since` is not an RFC 3339 time.' },
          NOT_FOUND,
          { code: 'conflict', description: `The webhook is disabled, or ${IDEMPOTENCY_CONFLICT}.` },
          ...BODY_ERRORS,
        ],
      },
      handle: async (input) =>
        accepted(await webhooks.recover(input.key.id, webhookIdOf(input), input.body, input.arrival)),
    }),
    defineRoute({
      method: 'GET',
      path: '/events',
      operation: {
        operationId: 'listEvents',
        summary: 'List events',
        description:
          'The events of the last 30 days in the order they were recorded, optionally of one type. A client that reaches the last page and continues later from its last cursor gets every event recorded since.',
        parameters: queryParameters(ListEventsQuery, {
          limit: 'Maximum number of events returned (1 to 100, default 20).',
          type: 'Returns events of this type.',
          cursor: 'Opaque cursor from the Link header of the previous page.',
        }),
        success: {
          status: 200,
          description: 'A page of events.',
          headers: listingHeaders('events'),
          body: { schema: EventList, example: [EXAMPLES.event] },
        },
        errors: [QUERY_ERROR],
      },
      handle: async (input) => {
        const page = await events.list(readEventListQuery(input.query));
        return pageAnswer(page, eventsPath, page.type === undefined ? '' : `&type=${page.type}`);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/events/{eventId}',
      operation: {
        operationId: 'getEvent',
        summary: 'Get an event',
        description: 'One event, as it was delivered.',
        parameters: [EVENT_ID],
        success: { status: 200, description: 'The event.', body: { schema: EventSchema, example: EXAMPLES.event } },
        errors: [{ code: 'not_found', description: 'No event of the last 30 days has this id.' }],
      },
      handle: async (input) => ok(await events.get(input.params.eventId ?? '')),
    }),
    defineRoute({
      method: 'POST',
      path: '/events/{eventId}/redeliver',
      operation: {
        operationId: 'redeliverEvent',
        summary: 'Deliver an event again',
        description:
          "A new delivery, with the whole retry schedule and the same `webhook-id`, to the calling key's enabled webhooks of the event's type, or to the one named. The body may be left out.",
        parameters: [EVENT_ID],
        acceptsIdempotencyKey: true,
        requestBody: {
          schema: Redelivery,
          mediaTypes: { 'application/json': { example: { webhookId: EXAMPLES.webhook.id } } },
          optional: true,
        },
        success: {
          status: 202,
          description: 'The event, queued for delivery.',
          body: { schema: EventSchema, example: EXAMPLES.event },
        },
        errors: [
          { code: 'invalid_body', description: 'The body is not JSON or breaks the schema.' },
          { code: 'not_found', description: 'No event has this id, or no webhook of this API key has webhookId.' },
          { code: 'conflict', description: `The webhook named is disabled, or ${IDEMPOTENCY_CONFLICT}.` },
          ...BODY_ERRORS,
        ],
      },
      handle: async (input) =>
        accepted(await events.redeliver(input.key.id, input.params.eventId ?? '', input.body, input.arrival)),
    }),
  ];
}
