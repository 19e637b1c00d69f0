// The event operations: list the events of the retention period in the order they were recorded, read
// one, and deliver one again. Events concern the whole store, as listings do: every key reads every
// event; a redelivery goes only to the caller's own subscriptions. Nothing here knows HTTP.
import type { Clock } from '../core/clock.js';
import { ApiError } from '../core/errors.js';
import { DEFAULT_PAGE_SIZE } from '../core/schemas.js';
import type { StoredEvent } from '../events/event.js';
import type { Arrival, Idempotency } from '../idempotency/idempotency.js';
import type { CursorCodec } from '../service/cursor-codec.js';
import type { WebhookStore } from '../store/webhook-store.js';
import type { WebhookSettings } from './settings.js';
import { validateEventListQuery, validateRedelivery } from './validate.js';
import { enabled, type JsonPage, owned, type WebhookAnswer } from './webhook-service.js';

/** A page of events, with the filter it was read with (for the next page's address). */
export interface EventListing extends JsonPage {
  type: string | undefined;
}

/** The operations on events. */
export class EventService {
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

  /** One page of the retained events, in the order they were recorded, optionally of one type. */
  async list(rawQuery: unknown): Promise<EventListing> {
    const query = validateEventListQuery(rawQuery);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const filter = query.type ?? '';
    const after = query.cursor === undefined ? undefined : this.#cursors.readPosition(query.cursor, 'events', filter);
    const page = await this.#store.pageEvents({ type: query.type, after, limit, sinceMs: this.#retainedSinceMs() });
    return {
      items: page.items,
      total: page.total,
      limit,
      type: query.type,
      next: page.more && page.last !== undefined ? this.#cursors.issuePosition('events', filter, page.last) : undefined,
    };
  }

  /** The event `id`, as it was delivered. */
  async get(id: string): Promise<string> {
    return (await this.#find(id)).json;
  }

  /**
   * A new delivery of event `id`, with the whole retry schedule and the same `webhook-id`, to the
   * caller's enabled subscriptions of its type, or to the one named (404 not the caller's, 409 disabled).
   */
  async redeliver(owner: string, id: string, body: unknown, arrival?: Arrival): Promise<WebhookAnswer> {
    const { webhookId } = validateRedelivery(body);
    const event = await this.#find(id);
    const outcome = await this.#idempotency.run(arrival, body ?? {}, async (remember) => {
      const targets = await this.#targets(owner, event, webhookId);
      await this.#store.redeliver(
        event.id,
        targets,
        remember === undefined ? undefined : { ...remember, body: event.json },
      );
      return event;
    });
    return outcome.replayed ? { json: outcome.body, replayed: true } : { json: event.json, replayed: false };
  }

  async #targets(owner: string, event: StoredEvent, webhookId: string | undefined): Promise<string[]> {
    if (webhookId !== undefined) {
      enabled(
        owned(owner, webhookId, await this.#store.getSubscription(webhookId)),
        'no event can be redelivered to it',
      );
      return [webhookId];
    }
    const targets: string[] = [];
    for (let afterSeq = 0; ;) {
      const page = await this.#store.pageSubscriptions(owner, afterSeq, 100);
      for (const subscription of page.items) {
        if (subscription.status === 'enabled' && (subscription.events as readonly string[]).includes(event.type))
          targets.push(subscription.id);
      }
      const last = page.items[page.items.length - 1];
      if (!page.more || last === undefined) return targets;
      afterSeq = last.seq;
    }
  }

  async #find(id: string): Promise<StoredEvent> {
    const event = await this.#store.getEvent(id, this.#retainedSinceMs());
    if (event === undefined) throw new ApiError('not_found', `No event has id ${JSON.stringify(id)}`);
    return event;
  }

  #retainedSinceMs(): number {
    return this.#clock.now() - this.#settings.eventRetentionMs;
  }
}
