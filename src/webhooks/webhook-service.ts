// The webhook operations, as the domain sees them: subscriptions of an API key (make, list, read,
// change, delete, rotate the secret), a test event, the attempts of a subscription and a recovery of
// missed events. A subscription belongs to the key that made it: to any other key it does not exist.
// Input is checked here (validate.ts), once, whoever calls; errors are ApiErrors of the error table.
// Nothing here knows HTTP.
import type { Clock } from '../core/clock.js';
import { ApiError } from '../core/errors.js';
import { DEFAULT_PAGE_SIZE } from '../core/schemas.js';
import type { StoredEvent } from '../events/event.js';
import type { Arrival, Idempotency } from '../idempotency/idempotency.js';
import { type CursorCodec, invalidCursor } from '../service/cursor-codec.js';
import type { Page } from '../store/store.js';
import type {
  AttemptPosition,
  NewSubscription,
  RememberedWrite,
  Subscription,
  SubscriptionSecret,
  WebhookStore,
} from '../store/webhook-store.js';
import { newSubscriptionId } from './ids.js';
import type { WebhookSettings } from './settings.js';
import { newWebhookSecret } from './signature.js';
import { validateNewWebhook, validateRecovery, validateWebhookListQuery, validateWebhookUpdate } from './validate.js';
import { webhookJson } from './webhook-json.js';

/** An answer of a changing operation: its JSON, and whether it is the remembered answer of an earlier request. */
export interface WebhookAnswer {
  json: string;
  replayed: boolean;
}

/** A page of items as JSON texts, in the order of their listing. */
export interface JsonPage {
  items: { json: string }[];
  total: number;
  limit: number;
  next: string | undefined;
}

/** The operations on subscriptions, for the API key `owner` (its record id). */
export class WebhookService {
  readonly #store: WebhookStore;
  readonly #cursors: CursorCodec;
  readonly #idempotency: Idempotency;
  readonly #clock: Clock;
  readonly #settings: WebhookSettings;

  constructor(
    store: WebhookStore,
    cursors: CursorCodec,
    idempotency: Idempotency,
    clock: Clock,
    settings: WebhookSettings,
  ) {
    this.#store = store;
    this.#cursors = cursors;
    this.#idempotency = idempotency;
    this.#clock = clock;
    this.#settings = settings;
  }

  /** Makes a subscription (409 past the limit per key); its answer shows the secret. */
  async create(owner: string, body: unknown, arrival?: Arrival): Promise<WebhookAnswer & { id: string }> {
    const input = validateNewWebhook(body, this.#settings.allowPrivate);
    const nowMs = this.#clock.now();
    const subscription: NewSubscription = {
      id: newSubscriptionId(),
      ownerKeyId: owner,
      url: input.url,
      events: input.events,
      description: input.description ?? null,
      status: 'enabled',
      disabledReason: null,
      createdAt: new Date(nowMs).toISOString(),
      secrets: [{ secret: newWebhookSecret(), expiresAtMs: null }],
      failingSinceMs: null,
    };
    const json = webhookJson(subscription, true);
    const outcome = await this.#idempotency.run(arrival, body, async (remember) => {
      const added = await this.#store.addSubscription(subscription, this.#settings.maxPerKey, withBody(remember, json));
      if (added === undefined) {
        throw new ApiError(
          'conflict',
          `This API key has ${this.#settings.maxPerKey} webhooks already, the most it may have; delete one first`,
        );
      }
      return added;
    });
    if (outcome.replayed) return { json: outcome.body, replayed: true, id: idOf(outcome.body) };
    return { json, replayed: false, id: subscription.id };
  }

  /** One page of the owner's subscriptions, in creation order. */
  async list(owner: string, rawQuery: unknown): Promise<JsonPage> {
    const query = validateWebhookListQuery(rawQuery);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const afterSeq = query.cursor === undefined ? 0 : this.#cursors.read(query.cursor, 'webhooks', owner);
    const page = await this.#store.pageSubscriptions(owner, afterSeq, limit);
    const last = page.items[page.items.length - 1];
    return {
      items: page.items.map((subscription) => ({ json: webhookJson(subscription) })),
      total: page.total,
      limit,
      next: page.more && last !== undefined ? this.#cursors.issue('webhooks', owner, last.seq) : undefined,
    };
  }

  /** The owner's subscription `id`, without its secret. */
  async get(owner: string, id: string): Promise<string> {
    return webhookJson(owned(owner, id, await this.#store.getSubscription(id)));
  }

  /** Changes the owner's subscription `id`: url, events, description, status. */
  async update(owner: string, id: string, body: unknown): Promise<string> {
    const update = validateWebhookUpdate(body, this.#settings.allowPrivate);
    const changed = await this.#store.updateSubscription(id, (current) => {
      const subscription = owned(owner, id, current);
      const status = update.status ?? subscription.status;
      const enabling = status === 'enabled' && subscription.status === 'disabled';
      return {
        ...subscription,
        url: update.url ?? subscription.url,
        events: update.events ?? subscription.events,
        description: update.description === undefined ? subscription.description : update.description,
        status,
        disabledReason: status === 'enabled' ? null : (subscription.disabledReason ?? 'disabled by its owner'),
        // Enabled again, it starts afresh: its failures before it was disabled do not count towards disabling it.
        failingSinceMs: enabling ? null : subscription.failingSinceMs,
      };
    });
    return webhookJson(changed);
  }

  /** Deletes the owner's subscription `id`, its pending deliveries and its attempts. */
  async delete(owner: string, id: string): Promise<void> {
    await this.#store.deleteSubscription(id, (current) => {
      owned(owner, id, current);
    });
  }

  /** A new secret for the owner's subscription `id`; the one it replaces still signs for the overlap. */
  async rotateSecret(owner: string, id: string, arrival?: Arrival): Promise<WebhookAnswer> {
    const secret = newWebhookSecret();
    const outcome = await this.#idempotency.run(arrival, {}, (remember) => {
      const nowMs = this.#clock.now();
      return this.#store.updateSubscription(
        id,
        (current) => {
          const subscription = owned(owner, id, current);
          const secrets = [{ secret, expiresAtMs: null }, ...stillSigning(subscription.secrets, nowMs, this.#settings)];
          return { ...subscription, secrets };
        },
        remember === undefined ? undefined : (rotated) => ({ ...remember, body: webhookJson(rotated, true) }),
      );
    });
    return outcome.replayed
      ? { json: outcome.body, replayed: true }
      : { json: webhookJson(outcome.item, true), replayed: false };
  }

  /** Sends a `webhook.test` event to the owner's subscription `id` (409 when it is disabled). */
  async test(owner: string, id: string, arrival?: Arrival): Promise<WebhookAnswer> {
    const outcome = await this.#idempotency.run(arrival, {}, (remember) =>
      this.#store.sendTest(
        id,
        this.#clock.now(),
        (current) => enabled(owned(owner, id, current), 'no test event can be sent to it'),
        remember === undefined ? undefined : (event: StoredEvent) => ({ ...remember, body: event.json }),
      ),
    );
    return outcome.replayed ? { json: outcome.body, replayed: true } : { json: outcome.item.json, replayed: false };
  }

  /** One page of the attempts to deliver to the owner's subscription `id`, newest first. */
  async attempts(owner: string, id: string, rawQuery: unknown): Promise<JsonPage> {
    owned(owner, id, await this.#store.getSubscription(id));
    const query = validateWebhookListQuery(rawQuery);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const before =
      query.cursor === undefined
        ? undefined
        : attemptPosition(this.#cursors.readPosition(query.cursor, 'attempts', id));
    const page: Page<{ seq: number; atMs: number; json: string }> = await this.#store.pageAttempts(id, before, limit);
    const last = page.items[page.items.length - 1];
    return {
      items: page.items,
      total: page.total,
      limit,
      next:
        page.more && last !== undefined
          ? this.#cursors.issuePosition('attempts', id, `${last.atMs}.${last.seq}`)
          : undefined,
    };
  }

  /** Delivers again to the owner's subscription `id` every event since `since` whose delivery to it did not succeed. */
  async recover(owner: string, id: string, body: unknown, arrival?: Arrival): Promise<WebhookAnswer> {
    const { since, sinceMs } = validateRecovery(body);
    const retainedSinceMs = this.#clock.now() - this.#settings.eventRetentionMs;
    const answer = (count: number): string => JSON.stringify({ webhookId: id, since, events: count });
    const outcome = await this.#idempotency.run(arrival, body, async (remember) =>
      this.#store.recover(
        id,
        Math.max(sinceMs, retainedSinceMs),
        (current) => enabled(owned(owner, id, current), 'nothing can be recovered for it'),
        remember === undefined ? undefined : (count: number) => ({ ...remember, body: answer(count) }),
      ),
    );
    return outcome.replayed ? { json: outcome.body, replayed: true } : { json: answer(outcome.item), replayed: false };
  }
}

/**
 * The position an attempts cursor carries: `time.seq` (AttemptPosition), or the bare seq of the cursors
 * of earlier releases, which listed attempts in the order they were recorded.
 */
export function attemptPosition(text: string): AttemptPosition {
  const match = /^(?:(0|[1-9][0-9]{0,15})\.)?(0|[1-9][0-9]{0,15})$/.exec(text);
  if (match === null) throw invalidCursor('was not issued for this listing');
  return { atMs: match[1] === undefined ? undefined : Number(match[1]), seq: Number(match[2]) };
}

/** `subscription` when it exists and belongs to `owner`; to any other key it does not exist. */
export function owned(owner: string, id: string, subscription: Subscription | undefined): Subscription {
  if (subscription === undefined || subscription.ownerKeyId !== owner)
    throw new ApiError('not_found', `No webhook has id ${JSON.stringify(id)}`);
  return subscription;
}

/** Refuses a disabled subscription for an operation that sends to it. */
export function enabled(subscription: Subscription, what: string): void {
  if (subscription.status !== 'enabled') {
    throw new ApiError(
      'conflict',
      `Webhook ${subscription.id} is disabled, so ${what}; enable it first (PATCH "status": "enabled")`,
    );
  }
}

/** The secrets that go on signing after a rotation: the current one until the overlap ends, older ones until theirs. */
function stillSigning(
  secrets: readonly SubscriptionSecret[],
  nowMs: number,
  settings: WebhookSettings,
): SubscriptionSecret[] {
  const kept: SubscriptionSecret[] = [];
  for (const { secret, expiresAtMs } of secrets) {
    if (expiresAtMs === null) kept.push({ secret, expiresAtMs: nowMs + settings.secretOverlapMs });
    else if (expiresAtMs > nowMs) kept.push({ secret, expiresAtMs });
  }
  return kept;
}

function withBody(remember: Omit<RememberedWrite, 'body'> | undefined, body: string): RememberedWrite | undefined {
  return remember === undefined ? undefined : { ...remember, body };
}

function idOf(json: string): string {
  return (JSON.parse(json) as { id: string }).id;
}
