// The settings of events and webhooks, with the defaults the README's "Events and webhooks" gives.

/** How events are kept and delivered. */
export interface WebhookSettings {
  /** The waits before each retry, in ms; jittered by ±20 % (docs/events.md: the retry schedule). */
  retryWaitsMs: readonly number[];
  /** How long one attempt may take, connecting to the end of the answer, in ms. */
  timeoutMs: number;
  /** A subscription failing with no success for this long is disabled, in ms. */
  disableAfterMs: number;
  /** How long a rotated-out secret still signs beside the new one, in ms. */
  secretOverlapMs: number;
  /** How long events (and attempts) are kept and listed, in ms. */
  eventRetentionMs: number;
  /** Whether receivers on loopback, private and other internal addresses may be reached. */
  allowPrivate: boolean;
  /** The most subscriptions one API key may have. */
  maxPerKey: number;
  /** The most attempts in flight to one subscription at a time, so one slow receiver cannot take every connection. */
  maxInFlightPerSubscription: number;
}

const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** The defaults: Standard Webhooks' suggested schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), 10 s timeout. */
export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = {
  retryWaitsMs: [5 * SECOND_MS, 5 * MINUTE_MS, 30 * MINUTE_MS, 2 * HOUR_MS, 5 * HOUR_MS, 10 * HOUR_MS, 10 * HOUR_MS],
  timeoutMs: 10 * SECOND_MS,
  disableAfterMs: 5 * DAY_MS,
  secretOverlapMs: DAY_MS,
  eventRetentionMs: 30 * DAY_MS,
  allowPrivate: false,
  maxPerKey: 20,
  maxInFlightPerSubscription: 8,
};
