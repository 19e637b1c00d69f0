// AnimalStoreClient: a typed method per API operation, async iterators that follow `Link` rel="next"
// through every page, and the retries of transport.ts. One undici Pool per client keeps its
// connections alive between calls; close() ends them.
import { randomUUID } from 'node:crypto';
import { type Dispatcher, Pool } from 'undici';
import { type Clock, systemClock } from '../core/clock.js';
import type { Order, OrderStatus, OrderUpdate } from '../orders/schemas.js';
import type { NewPet, Pet, PetStatus } from '../pets/schemas.js';
import type {
  Attempt,
  Event,
  NewWebhook,
  RecoveryAnswer,
  Webhook,
  WebhookUpdate,
  WebhookWithSecret,
} from '../webhooks/schemas.js';
import type {
  AttemptPage,
  CreateOptions,
  EventListOptions,
  EventPage,
  IterateOptions,
  ListOptions,
  OrderPage,
  PageOptions,
  PetPage,
  WebhookPage,
} from './call-types.js';
import { iteratePages, type ListQuery, listPath, pageInfo } from './paging.js';
import { type RetryPolicy, resolveRetryPolicy } from './retry.js';
import { type ApiAnswer, type ApiRequest, Transport } from './transport.js';

/** How a client reaches the service. */
export interface AnimalStoreClientOptions {
  /** The API's address with its base path, as `animal-store serve` prints it: `http://localhost:3000/v1`. */
  baseUrl: string | URL;
  /** The bearer key sent with every request. */
  apiKey: string;
  /** Retry policy for 429, 503 and safe network failures; `false` sends each request once. */
  retry?: Partial<RetryPolicy> | false;
  /** Most connections the client's pool opens (default 10). */
  connections?: number;
  /** An undici dispatcher to send through instead of the client's own pool; close() leaves it open. */
  dispatcher?: Dispatcher;
  /** Time for deadlines (monotonic) and HTTP-date Retry-After values (wall); tests pass a ManualClock. */
  clock?: Clock;
  /** How the client waits between attempts; tests pass one that returns at once. */
  sleep?: (ms: number) => Promise<void>;
  /** A source of numbers in [0, 1) for the backoff's jitter. */
  random?: () => number;
}

/** Iterators fetch the largest pages the service allows: fewest round trips and rate-limit tokens. */
const ITERATION_PAGE_SIZE = 100;
/** Connections of the client's own pool when `connections` is not given. */
const DEFAULT_CONNECTIONS = 10;

/** A client of the animal-store API: typed calls, paging, retries with backoff. */
export class AnimalStoreClient {
  readonly #transport: Transport;
  readonly #origin: string;
  readonly #basePath: string;
  /** The pool this client made (and so closes); undefined with a dispatcher passed in. */
  readonly #ownPool: Pool | undefined;

  constructor(options: AnimalStoreClientOptions) {
    const url = new URL(options.baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new TypeError(`baseUrl must be an http: or https: address, not ${url.href}`);
    if (typeof options.apiKey !== 'string' || options.apiKey.length === 0)
      throw new TypeError('apiKey must be a non-empty string');
    this.#origin = url.origin;
    this.#basePath = url.pathname.replace(/\/+$/, '');
    this.#ownPool =
      options.dispatcher === undefined
        ? new Pool(url.origin, { connections: options.connections ?? DEFAULT_CONNECTIONS })
        : undefined;
    this.#transport = new Transport({
      origin: url.origin,
      apiKey: options.apiKey,
      dispatcher: options.dispatcher ?? (this.#ownPool as Pool),
      retry: resolveRetryPolicy(options.retry),
      clock: options.clock ?? systemClock,
      sleep: options.sleep,
      random: options.random,
    });
  }

  /** One page of animals in ascending id order (`GET /pets`). */
  async listPets(options: ListOptions<PetStatus> = {}): Promise<PetPage> {
    const answer = await this.#get('/pets', { limit: options.limit, status: options.status, cursor: options.cursor });
    return { pets: answer.body as Pet[], ...pageInfo(answer) };
  }

  /** Every animal (with `status`: every one in it), following `Link` rel="next" from page to page. */
  pets(options: IterateOptions<PetStatus> = {}): AsyncIterableIterator<Pet> {
    return this.#iterate<Pet>('/pets', { limit: options.limit ?? ITERATION_PAGE_SIZE, status: options.status });
  }

  /** Adds an animal (`POST /pets`); its status defaults to available. */
  async createPet(pet: NewPet, options: CreateOptions = {}): Promise<Pet> {
    return (await this.#post('/pets', pet, options)).body as Pet;
  }

  /**
   * One animal by id (`GET /pets/{petId}`).
   * @deprecated The service deprecates this operation (Deprecation: 2026-11-22, Sunset: 2030-12-05) and answers 410 after the sunset; use `listPets` or `pets` instead.
   */
  async getPet(id: number): Promise<Pet> {
    return (await this.#get(`/pets/${idSegment(id, 'petId')}`)).body as Pet;
  }

  /** One page of orders in ascending id order (`GET /store/orders`, beta). */
  async listOrders(options: ListOptions<OrderStatus> = {}): Promise<OrderPage> {
    const query = { limit: options.limit, status: options.status, cursor: options.cursor };
    const answer = await this.#get('/store/orders', query);
    return { orders: answer.body as Order[], ...pageInfo(answer) };
  }

  /** Every order (with `status`: every one in it), following `Link` rel="next". */
  orders(options: IterateOptions<OrderStatus> = {}): AsyncIterableIterator<Order> {
    return this.#iterate<Order>('/store/orders', {
      limit: options.limit ?? ITERATION_PAGE_SIZE,
      status: options.status,
    });
  }

  /** Orders an available animal (`POST /store/orders`); it becomes pending. */
  async placeOrder(petId: number, options: CreateOptions = {}): Promise<Order> {
    return (await this.#post('/store/orders', { petId: idNumber(petId, 'petId') }, options)).body as Order;
  }

  /** One order by id (`GET /store/orders/{orderId}`). */
  async getOrder(id: number): Promise<Order> {
    return (await this.#get(`/store/orders/${idSegment(id, 'orderId')}`)).body as Order;
  }

  /** Moves a placed order on (`PATCH /store/orders/{orderId}`): delivered sells the animal, cancelled frees it. */
  async updateOrder(id: number, status: OrderUpdate['status']): Promise<Order> {
    const path = this.#path(`/store/orders/${idSegment(id, 'orderId')}`);
    return (await this.#send({ method: 'PATCH', path, body: { status } })).body as Order;
  }

  /** Cancels a placed order (`DELETE /store/orders/{orderId}`); the animal is available again. */
  async cancelOrder(id: number): Promise<Order> {
    const path = this.#path(`/store/orders/${idSegment(id, 'orderId')}`);
    return (await this.#send({ method: 'DELETE', path })).body as Order;
  }

  /** Subscribes `url` to events (`POST /webhooks`); the answer shows the signing secret, which is shown again only on rotation. */
  async createWebhook(webhook: NewWebhook, options: CreateOptions = {}): Promise<WebhookWithSecret> {
    return (await this.#post('/webhooks', webhook, options)).body as WebhookWithSecret;
  }

  /** One page of this key's subscriptions, in creation order (`GET /webhooks`). */
  async listWebhooks(options: PageOptions = {}): Promise<WebhookPage> {
    const answer = await this.#get('/webhooks', { limit: options.limit, cursor: options.cursor });
    return { webhooks: answer.body as Webhook[], ...pageInfo(answer) };
  }

  /** Every subscription of this key, following `Link` rel="next". */
  webhooks(options: Omit<PageOptions, 'cursor'> = {}): AsyncIterableIterator<Webhook> {
    return this.#iterate<Webhook>('/webhooks', { limit: options.limit ?? ITERATION_PAGE_SIZE });
  }

  /** One subscription, without its secret (`GET /webhooks/{webhookId}`). */
  async getWebhook(id: string): Promise<Webhook> {
    return (await this.#get(webhookPath(id))).body as Webhook;
  }

  /** Changes the members given (`PATCH /webhooks/{webhookId}`); `status: 'disabled'` stops deliveries. */
  async updateWebhook(id: string, changes: WebhookUpdate): Promise<Webhook> {
    return (await this.#send({ method: 'PATCH', path: this.#path(webhookPath(id)), body: changes })).body as Webhook;
  }

  /** Deletes a subscription with its pending deliveries and attempts (`DELETE /webhooks/{webhookId}`). */
  async deleteWebhook(id: string): Promise<void> {
    await this.#send({ method: 'DELETE', path: this.#path(webhookPath(id)) });
  }

  /** A new signing secret (`POST /webhooks/{webhookId}/rotate-secret`); the old one goes on signing beside it for 24 hours. */
  async rotateWebhookSecret(id: string, options: CreateOptions = {}): Promise<WebhookWithSecret> {
    return (await this.#post(`${webhookPath(id)}/rotate-secret`, undefined, options)).body as WebhookWithSecret;
  }

  /** Sends a `webhook.test` event to the subscription (`POST /webhooks/{webhookId}/test`) and answers it. */
  async testWebhook(id: string, options: CreateOptions = {}): Promise<Event> {
    return (await this.#post(`${webhookPath(id)}/test`, undefined, options)).body as Event;
  }

  /** One page of the subscription's delivery attempts, newest first (`GET /webhooks/{webhookId}/attempts`). */
  async listWebhookAttempts(id: string, options: PageOptions = {}): Promise<AttemptPage> {
    const answer = await this.#get(`${webhookPath(id)}/attempts`, { limit: options.limit, cursor: options.cursor });
    return { attempts: answer.body as Attempt[], ...pageInfo(answer) };
  }

  /** Every delivery attempt of the subscription, newest first, following `Link` rel="next". */
  webhookAttempts(id: string, options: Omit<PageOptions, 'cursor'> = {}): AsyncIterableIterator<Attempt> {
    return this.#iterate<Attempt>(`${webhookPath(id)}/attempts`, { limit: options.limit ?? ITERATION_PAGE_SIZE });
  }

  /** Sends again every event since `since` that the subscription missed (`POST /webhooks/{webhookId}/recover`). */
  async recoverWebhook(id: string, since: string | Date, options: CreateOptions = {}): Promise<RecoveryAnswer> {
    const body = { since: timeText(since, 'since') };
    return (await this.#post(`${webhookPath(id)}/recover`, body, options)).body as RecoveryAnswer;
  }

  /** One page of the events of the last 30 days, in the order they were recorded (`GET /events`). */
  async listEvents(options: EventListOptions = {}): Promise<EventPage> {
    const answer = await this.#get('/events', { limit: options.limit, type: options.type, cursor: options.cursor });
    return { events: answer.body as Event[], ...pageInfo(answer) };
  }

  /** Every event of the last 30 days (with `type`: of that type), following `Link` rel="next". */
  events(options: Omit<EventListOptions, 'cursor'> = {}): AsyncIterableIterator<Event> {
    return this.#iterate<Event>('/events', { limit: options.limit ?? ITERATION_PAGE_SIZE, type: options.type });
  }

  /** One event, as it was delivered (`GET /events/{eventId}`). */
  async getEvent(id: string): Promise<Event> {
    return (await this.#get(eventPath(id))).body as Event;
  }

  /** Delivers an event again (`POST /events/{eventId}/redeliver`): to this key's enabled subscriptions of its type, or to `webhookId`. */
  async redeliverEvent(id: string, target: { webhookId?: string } = {}, options: CreateOptions = {}): Promise<Event> {
    const body = target.webhookId === undefined ? {} : { webhookId: target.webhookId };
    return (await this.#post(`${eventPath(id)}/redeliver`, body, options)).body as Event;
  }

  /** Closes the client's connections (not those of a dispatcher passed in). */
  async close(): Promise<void> {
    await this.#ownPool?.close();
  }

  #send(request: ApiRequest): Promise<ApiAnswer> {
    return this.#transport.send(request);
  }

  #path(resource: string, query: ListQuery = {}): string {
    return listPath(this.#basePath, resource, query);
  }

  #get(resource: string, query: ListQuery = {}): Promise<ApiAnswer> {
    return this.#send({ method: 'GET', path: this.#path(resource, query) });
  }

  #iterate<T>(resource: string, query: ListQuery): AsyncIterableIterator<T> {
    return iteratePages<T>((request) => this.#send(request), this.#origin, this.#path(resource, query));
  }

  #post(resource: string, body: unknown, options: CreateOptions): Promise<ApiAnswer> {
    const idempotencyKey = options.idempotencyKey ?? randomUUID();
    return this.#send({ method: 'POST', path: this.#path(resource), body, idempotencyKey });
  }
}

/** Ids are positive integers up to 2^53 − 1 (README "How the API behaves"); anything else is the caller's bug, not a request to send. */
function idNumber(id: number, name: string): number {
  if (!Number.isSafeInteger(id) || id < 1)
    throw new TypeError(`${name} must be a whole number from 1 to 2^53 − 1, not ${String(id)}`);
  return id;
}

function idSegment(id: number, name: string): string {
  return String(idNumber(id, name));
}

/** Webhook ids begin with `wh_` and event ids with `evt_` (docs/events.md); anything else is the caller's bug, not a request to send. */
function stringIdSegment(id: string, prefix: string, name: string): string {
  if (typeof id !== 'string' || id.length <= prefix.length || !id.startsWith(prefix))
    throw new TypeError(`${name} must be a string that begins with ${prefix}, not ${String(id)}`);
  return encodeURIComponent(id);
}

function webhookPath(id: string): string {
  return `/webhooks/${stringIdSegment(id, 'wh_', 'webhookId')}`;
}

function eventPath(id: string): string {
  return `/events/${stringIdSegment(id, 'evt_', 'eventId')}`;
}

/** A time to send: a Date as RFC 3339 UTC, a string as given (the service checks it); an invalid Date is a TypeError. */
function timeText(time: string | Date, name: string): string {
  if (typeof time === 'string') return time;
  if (!(time instanceof Date) || Number.isNaN(time.getTime()))
    throw new TypeError(`${name} must be an RFC 3339 time or a valid Date, not ${String(time)}`);
  return time.toISOString();
}
