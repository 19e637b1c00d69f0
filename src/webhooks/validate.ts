// Validation of the webhook and event operations' input. Pure: values in, typed values or an ApiError
// out. Beyond the schemas: a URL must be one the service may deliver to (address-policy.ts), a
// description well-formed Unicode, a recovery time a real RFC 3339 instant.
import { ApiError } from '../core/errors.js';
import { MAX_PAGE_SIZE } from '../core/schemas.js';
import { createValidator, type FieldRules } from '../core/validation.js';
import { EVENT_TYPES } from '../events/event.js';
import {
  ListEventsQuery,
  ListWebhooksQuery,
  MAX_DESCRIPTION_CODE_POINTS,
  MAX_URL_CHARACTERS,
  NewWebhook,
  Recovery,
  Redelivery,
  WebhookUpdate,
} from './schemas.js';
import { validateWebhookUrl } from './webhook-url.js';

const TYPES_RULE = `a non-empty list of distinct event types, each one of ${EVENT_TYPES.map((type) => `"${type}"`).join(', ')}`;
const URL_RULE = `an absolute http or https URL of at most ${MAX_URL_CHARACTERS} characters`;
const DESCRIPTION_RULE = `a string of at most ${MAX_DESCRIPTION_CODE_POINTS} characters`;

const NEW_WEBHOOK_RULES: FieldRules = {
  url: URL_RULE,
  events: TYPES_RULE,
  description: `${DESCRIPTION_RULE}, or null`,
};
const UPDATE_RULES: FieldRules = { ...NEW_WEBHOOK_RULES, status: '"enabled" or "disabled"' };

const checkNewWebhook = createValidator(NewWebhook, 'the webhook', NEW_WEBHOOK_RULES);
const checkUpdate = createValidator(WebhookUpdate, 'the webhook update', UPDATE_RULES);
const checkRedelivery = createValidator(Redelivery, 'the redelivery', { webhookId: 'a webhook id ("wh_...")' });
const checkRecovery = createValidator(Recovery, 'the recovery', {
  since: 'an RFC 3339 date and time, such as "2026-11-26T09:00:00Z"',
});

function fieldError(field: string, message: string): ApiError {
  return new ApiError('invalid_body', message, [{ path: `/${field}`, message }]);
}

/** The URL as stored: checked to be one the service may deliver to. */
function checkedUrl(raw: string, allowPrivate: boolean): string {
  const checked = validateWebhookUrl(raw, { allowPrivate });
  if (!checked.ok) throw fieldError('url', `"${checked.reason.replace(/^url/, 'url"')}`);
  return checked.url;
}

function checkDescription(description: string | null | undefined): void {
  if (typeof description === 'string' && !description.isWellFormed())
    throw fieldError('description', '"description" must be well-formed Unicode text (it contains a lone surrogate)');
}

/**
 * Refuses `events` holding anything but strings before the schema sees it: `uniqueItems` compares
 * items by hashing them whole, and a body of arrays nested thousands deep (well under the body limit)
 * would exhaust the stack there.
 */
function checkEventsAreStrings(body: unknown): void {
  const events = typeof body === 'object' && body !== null ? (body as { events?: unknown }).events : undefined;
  if (Array.isArray(events) && !events.every((item) => typeof item === 'string'))
    throw fieldError('events', `"events" must be ${TYPES_RULE}`);
}

/** Checks a `POST /webhooks` body. */
export function validateNewWebhook(body: unknown, allowPrivate: boolean): NewWebhook {
  checkEventsAreStrings(body);
  const webhook = checkNewWebhook(body);
  checkDescription(webhook.description);
  return { ...webhook, url: checkedUrl(webhook.url, allowPrivate) };
}

/** Checks a `PATCH /webhooks/{id}` body. */
export function validateWebhookUpdate(body: unknown, allowPrivate: boolean): WebhookUpdate {
  checkEventsAreStrings(body);
  const update = checkUpdate(body);
  checkDescription(update.description);
  return update.url === undefined ? update : { ...update, url: checkedUrl(update.url, allowPrivate) };
}

/** Checks a `POST /events/{id}/redeliver` body; an absent body is `{}`. */
export function validateRedelivery(body: unknown): Redelivery {
  return checkRedelivery(body ?? {});
}

// RFC 3339 §5.6 date-time: a full date, "T" (or "t"/space is not allowed here), a time, and an offset.
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** The seconds of an RFC 3339 date-time ("2026-11-26T09:00:SS…"). */
const SECONDS_AT = 17;

/**
 * `text`, an RFC 3339 date-time, as ms since the epoch; NaN when it is none. A leap second (RFC 3339
 * §5.7: 23:59:60 UTC) is taken as the start of the next second, since a JavaScript time has none.
 */
function rfc3339Ms(text: string): number {
  if (!RFC3339.test(text)) return Number.NaN;
  if (text.slice(SECONDS_AT, SECONDS_AT + 2) !== '60') return Date.parse(text);
  const lastSecondMs = Date.parse(`${text.slice(0, SECONDS_AT)}59${text.slice(SECONDS_AT + 2)}`);
  const utc = new Date(lastSecondMs);
  if (utc.getUTCHours() !== 23 || utc.getUTCMinutes() !== 59) return Number.NaN;
  return Math.floor(lastSecondMs / 1000) * 1000 + 1000;
}

/** Checks a `POST /webhooks/{id}/recover` body; `since` as ms since the epoch. */
export function validateRecovery(body: unknown): { since: string; sinceMs: number } {
  const { since } = checkRecovery(body);
  const sinceMs = rfc3339Ms(since);
  if (!Number.isFinite(sinceMs))
    throw fieldError('since', '"since" must be an RFC 3339 date and time, such as "2026-11-26T09:00:00Z"');
  return { since, sinceMs };
}

const PAGE_RULES: FieldRules = {
  limit: `an integer from 1 to ${MAX_PAGE_SIZE} in plain decimal digits`,
  cursor: 'the opaque value from the Link header of the previous page',
};

/** Checks a listing query of subscriptions or attempts (limit, cursor). */
export const validateWebhookListQuery = createValidator(ListWebhooksQuery, 'the query', PAGE_RULES, 'query');

/** Checks a listing query of events (limit, type, cursor). */
export const validateEventListQuery = createValidator(
  ListEventsQuery,
  'the query',
  { ...PAGE_RULES, type: `one of ${EVENT_TYPES.map((type) => `"${type}"`).join(', ')}` },
  'query',
);
