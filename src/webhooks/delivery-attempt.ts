// One delivery attempt, as the delivery worker makes it: the event sent signed as Standard Webhooks v1
// says, and what the answer means: done, retried when (the retry schedule, a Retry-After honoured), or
// the subscription disabled, with the record of it the store writes. A delivery whose API key is no
// longer in force is dropped unsent.
import type { Clock } from '../core/clock.js';
import type { AttemptResult, DueDelivery, WebhookStore } from '../store/webhook-store.js';
import type { DeliveryRequest, DeliveryResult } from './delivery-transport.js';
import { newAttemptId } from './ids.js';
import { parseRetryAfterMs } from './retry-after.js';
import { honoursRetryAfter, nextAttemptDelayMs } from './retry-schedule.js';
import type { WebhookSettings } from './settings.js';
import { signatureHeaders } from './signature.js';

/** What the worker sends with: one attempt, never throwing for a failure of the network or the receiver. */
export interface DeliverySender {
  send(request: DeliveryRequest): Promise<DeliveryResult>;
}

/** What an attempt needs of the worker's parts (DeliveryWorkerParts). */
export interface AttemptParts {
  store: Pick<WebhookStore, 'dropDelivery'>;
  sender: DeliverySender;
  clock: Clock;
  settings: WebhookSettings;
  /** Whether the API key with this record id is still in force: a revoked key's subscriptions receive nothing more. */
  isKeyActive(keyId: string): boolean;
}

/** The `User-Agent` of every delivery. */
const USER_AGENT = 'animal-store-webhooks/1';
/** A whole attempt counts as failed unless its status is 2xx (Standard Webhooks: success is any 2xx). */
const isSuccess = (status: number | null): boolean => status !== null && status >= 200 && status < 300;

/** Sends one attempt and decides what follows; undefined when the delivery was dropped unsent. */
export async function attemptDelivery(
  parts: AttemptParts,
  random: () => number,
  delivery: DueDelivery,
): Promise<AttemptResult | undefined> {
  const { store, sender, clock } = parts;
  if (!parts.isKeyActive(delivery.ownerKeyId)) {
    await store.dropDelivery(delivery.deliveryId);
    return undefined;
  }
  const attemptedAtMs = clock.now();
  const body = delivery.event.json;
  const headers = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    ...signatureHeaders(delivery.secrets, delivery.event.id, Math.floor(attemptedAtMs / 1000), body),
  };
  const outcome = await sender.send({ url: delivery.url, headers, body });
  return decide(parts, random, delivery, attemptedAtMs, outcome);
}

/** What an attempt's outcome means: done, retried when, or the subscription disabled, and the record of it. */
function decide(
  parts: AttemptParts,
  random: () => number,
  delivery: DueDelivery,
  attemptedAtMs: number,
  outcome: DeliveryResult,
): AttemptResult {
  const { settings, clock } = parts;
  const delivered = outcome.error === null && isSuccess(outcome.status);
  const endedMs = attemptedAtMs + outcome.durationMs;
  let nextAttemptAtMs: number | null = null;
  let disableReason: string | undefined;
  let failingSinceMs: number | null = null;
  if (!delivered) {
    failingSinceMs = delivery.failingSinceMs ?? attemptedAtMs;
    if (outcome.status === 410) {
      disableReason = 'the endpoint answered 410 Gone';
    } else if (endedMs - failingSinceMs >= settings.disableAfterMs) {
      disableReason = `no delivery has succeeded since ${new Date(failingSinceMs).toISOString()}`;
    } else {
      const retryAfterMs =
        outcome.status !== null && honoursRetryAfter(outcome.status)
          ? parseRetryAfterMs(outcome.retryAfter, clock.now())
          : undefined;
      const waitMs = nextAttemptDelayMs({
        attemptNumber: delivery.attemptsMade + 1,
        waitsMs: settings.retryWaitsMs,
        random,
        ...(retryAfterMs !== undefined && { retryAfterMs }),
      });
      if (waitMs !== undefined) nextAttemptAtMs = endedMs + waitMs;
    }
  }
  return {
    deliveryId: delivery.deliveryId,
    subscriptionId: delivery.subscriptionId,
    // The facts only: the store renders the listed JSON from them (attempt-json.ts) when it is asked.
    attempt: {
      id: newAttemptId(),
      attemptedAtMs: Math.trunc(attemptedAtMs),
      status: outcome.status,
      error: outcome.error,
      durationMs: Math.max(0, Math.round(outcome.durationMs)),
      response: outcome.responseText,
    },
    event: delivery.event,
    nextAttemptAtMs,
    delivered,
    failingSinceMs,
    ...(disableReason !== undefined && { disableReason }),
  };
}
