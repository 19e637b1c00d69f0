// AnimalStoreClient: a typed method per API operation, async iterators that follow `Link` rel="next"
// through every page, and the retries of transport.ts. One undici Pool per client keeps its
// connections alive between calls; close() ends them.
import { randomUUID } from 'node:crypto';
import { type Dispatcher, Pool } from 'undici';
import { type Clock, systemClock } from '../core/clock.js';
import type { Order, OrderStatus, OrderUpdate } from '../orders/schemas.js';
import type { NewPet, Pet, PetStatus } from '../pets/schemas.js';
import { AnimalStoreError, CLIENT_ERROR_CODES } from './errors.js';
import { linkTarget } from './link.js';
import { type RetryPolicy, resolveRetryPolicy } from './retry.js';
import { type ApiAnswer, type ApiRequest, headerText, Transport } from './transport.js';

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

/** Which page of a listing to fetch. */
export interface ListOptions<S extends string> {
  /** Page size, 1 to 100 (the service's default is 20). */
  limit?: number;
  /** Only items in this status. */
  status?: S;
  /** The `next` of the previous page, with the same `status`. */
  cursor?: string;
}

/** What to iterate over: every item of the listing (with `status`: those in it), fetched `limit` at a time. */
export type IterateOptions<S extends string> = Omit<ListOptions<S>, 'cursor'>;

/** A page of animals: the animals, the cursor of the next page (undefined on the last) and how many match in all. */
export interface PetPage {
  pets: Pet[];
  next: string | undefined;
  total: number;
}

/** A page of orders, as PetPage. */
export interface OrderPage {
  orders: Order[];
  next: string | undefined;
  total: number;
}

/** Options of a POST that creates something. */
export interface CreateOptions {
  /** Sent as `Idempotency-Key` (1 to 255 visible ASCII characters); a random UUID when not given, so retries never create twice. */
  idempotencyKey?: string;
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
    const answer = await this.#send({ method: 'GET', path: this.#listPath('/pets', options) });
    return { pets: answer.body as Pet[], ...pageInfo(answer) };
  }

  /** Every animal (with `status`: every one in it), following `Link` rel="next" from page to page. */
  pets(options: IterateOptions<PetStatus> = {}): AsyncIterableIterator<Pet> {
    return this.#iterate<Pet>(this.#listPath('/pets', { limit: ITERATION_PAGE_SIZE, ...options }));
  }

  /** Adds an animal (`POST /pets`); its status defaults to available. */
  async createPet(pet: NewPet, options: CreateOptions = {}): Promise<Pet> {
    const answer = await this.#send({
      method: 'POST',
      path: `${this.#basePath}/pets`,
      body: pet,
      idempotencyKey: options.idempotencyKey ?? randomUUID(),
    });
    return answer.body as Pet;
  }

  /**
   * One animal by id (`GET /pets/{petId}`).
   * @deprecated The service deprecates this operation (Deprecation: 2026-11-22, Sunset: 2030-12-05) and answers 410 after the sunset; use `listPets` or `pets` instead.
   */
  async getPet(id: number): Promise<Pet> {
    const answer = await this.#send({ method: 'GET', path: `${this.#basePath}/pets/${idSegment(id, 'petId')}` });
    return answer.body as Pet;
  }

  /** One page of orders in ascending id order (`GET /store/orders`, beta). */
  async listOrders(options: ListOptions<OrderStatus> = {}): Promise<OrderPage> {
    const answer = await this.#send({ method: 'GET', path: this.#listPath('/store/orders', options) });
    return { orders: answer.body as Order[], ...pageInfo(answer) };
  }

  /** Every order (with `status`: every one in it), following `Link` rel="next". */
  orders(options: IterateOptions<OrderStatus> = {}): AsyncIterableIterator<Order> {
    return this.#iterate<Order>(this.#listPath('/store/orders', { limit: ITERATION_PAGE_SIZE, ...options }));
  }

  /** Orders an available animal (`POST /store/orders`); it becomes pending. */
  async placeOrder(petId: number, options: CreateOptions = {}): Promise<Order> {
    const body = { petId: idNumber(petId, 'petId') };
    const answer = await this.#send({
      method: 'POST',
      path: `${this.#basePath}/store/orders`,
      body,
      idempotencyKey: options.idempotencyKey ?? randomUUID(),
    });
    return answer.body as Order;
  }

  /** One order by id (`GET /store/orders/{orderId}`). */
  async getOrder(id: number): Promise<Order> {
    const answer = await this.#send({
      method: 'GET',
      path: `${this.#basePath}/store/orders/${idSegment(id, 'orderId')}`,
    });
    return answer.body as Order;
  }

  /** Moves a placed order on (`PATCH /store/orders/{orderId}`): delivered sells the animal, cancelled frees it. */
  async updateOrder(id: number, status: OrderUpdate['status']): Promise<Order> {
    const path = `${this.#basePath}/store/orders/${idSegment(id, 'orderId')}`;
    const answer = await this.#send({ method: 'PATCH', path, body: { status } });
    return answer.body as Order;
  }

  /** Cancels a placed order (`DELETE /store/orders/{orderId}`); the animal is available again. */
  async cancelOrder(id: number): Promise<Order> {
    const answer = await this.#send({
      method: 'DELETE',
      path: `${this.#basePath}/store/orders/${idSegment(id, 'orderId')}`,
    });
    return answer.body as Order;
  }

  /** Closes the client's connections (not those of a dispatcher passed in). */
  async close(): Promise<void> {
    await this.#ownPool?.close();
  }

  #send(request: ApiRequest): Promise<ApiAnswer> {
    return this.#transport.send(request);
  }

  #listPath(resource: string, options: ListOptions<string>): string {
    const query = new URLSearchParams();
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    if (options.status !== undefined) query.set('status', options.status);
    if (options.cursor !== undefined) query.set('cursor', options.cursor);
    const search = query.toString();
    return `${this.#basePath}${resource}${search.length > 0 ? `?${search}` : ''}`;
  }

  async *#iterate<T>(firstPath: string): AsyncIterableIterator<T> {
    let path: string | undefined = firstPath;
    while (path !== undefined) {
      const answer = await this.#send({ method: 'GET', path });
      yield* answer.body as T[];
      path = this.#nextPath(answer);
    }
  }

  /** The path of `Link` rel="next", refused if it leads to another origin: the bearer key goes only to the one it was given for. */
  #nextPath(answer: ApiAnswer): string | undefined {
    const target = linkTarget(answer.headers.link, 'next');
    if (target === undefined) return undefined;
    const url = new URL(target, this.#origin);
    if (url.origin !== this.#origin) {
      throw new AnimalStoreError({
        status: answer.status,
        code: CLIENT_ERROR_CODES.unexpected_response,
        message: `The next page's link points to another origin (${url.origin}); not following it with this client's key`,
        requestId: headerText(answer.headers['x-request-id']),
      });
    }
    return `${url.pathname}${url.search}`;
  }
}

function pageInfo(answer: ApiAnswer): { next: string | undefined; total: number } {
  const target = linkTarget(answer.headers.link, 'next');
  const next =
    target === undefined ? undefined : (new URL(target, 'http://link.invalid').searchParams.get('cursor') ?? undefined);
  return { next, total: Number(headerText(answer.headers['x-total-count']) ?? Number.NaN) };
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
