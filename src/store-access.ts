// Typed access to the store for a program that embeds it (issue 7): the API's own operations, called
// without HTTP, so validation, id assignment, durability, conflicts and errors are exactly those of
// the API (an ApiError with the contract's code), and nothing can bypass them. What belongs to HTTP
// (keys, rate limits, headers, the getPet sunset) does not apply.
import type { ApiKey } from './auth/api-key.js';
import { ApiError } from './errors.js';
import type { Answer, Operation } from './http/operation.js';
import type { Order, OrderStatus } from './orders/schemas.js';
import type { NewPet, Pet, PetStatus } from './pets/schemas.js';

/** A page request, as the `limit`, `status` and `cursor` query parameters of a listing. */
export interface PageQuery<Status extends string> {
  status?: Status;
  /** 1 to 100; default 20. */
  limit?: number;
  /** The `next` of the previous page. */
  cursor?: string;
}

/** The pets: read, list and create. */
export interface PetAccess {
  /** The pet with `id`, or undefined when there is none. */
  get(id: number): Pet | undefined;
  /** One page in ascending id order, as `GET /pets` answers it; `next` is undefined on the last page. */
  list(query?: PageQuery<PetStatus>): { pets: Pet[]; next: string | undefined; total: number };
  /** Creates a pet as `POST /pets` does: validated, and on disk before it resolves. */
  create(pet: NewPet): Promise<Pet>;
}

/** The orders (beta): read, list, place and move on. */
export interface OrderAccess {
  /** The order with `id`, or undefined when there is none. */
  get(id: number): Order | undefined;
  /** One page in ascending id order, as `GET /store/orders` answers it. */
  list(query?: PageQuery<OrderStatus>): { orders: Order[]; next: string | undefined; total: number };
  /** Places an order for an available pet (which becomes pending); 404 or 409 as an ApiError otherwise. */
  place(petId: number): Promise<Order>;
  /** Moves a placed order to delivered (its pet sold) or cancelled (its pet available again). */
  update(id: number, status: 'delivered' | 'cancelled'): Promise<Order>;
}

/** Operations need a key for their input's shape; none of them reads it. */
const EMBEDDING_PROGRAM: ApiKey = {
  id: 'embedded',
  name: 'the embedding program',
  plan: 'enterprise',
  perMinute: 1,
  perDay: 1,
  hash: '',
  createdAt: '',
  revokedAt: null,
};

interface CallInput {
  params?: Record<string, string>;
  query?: PageQuery<string>;
  body?: unknown;
}

/** Typed access over the API's operations. */
export function storeAccess(operations: readonly Operation[]): { pets: PetAccess; orders: OrderAccess } {
  const byId = new Map(operations.map((operation) => [operation.operationId, operation]));
  const invoke = (operationId: string, { params = {}, query = {}, body }: CallInput): Answer | Promise<Answer> => {
    const operation = byId.get(operationId);
    if (operation === undefined) throw new Error(`no operation ${operationId}`);
    return operation.handle({
      params,
      query: queryString(query),
      body,
      key: EMBEDDING_PROGRAM,
      headers: {},
      idempotency: undefined,
    });
  };
  const change = async <T>(operationId: string, input: CallInput): Promise<T> =>
    JSON.parse((await invoke(operationId, input)).body) as T;
  // Reads answer synchronously, so `get` and `list` need not be async.
  const read = (operationId: string, input: CallInput): Answer => {
    const answer = invoke(operationId, input);
    if (answer instanceof Promise) throw new Error(`${operationId} is not a read`);
    return answer;
  };
  const getOne = <T>(operationId: string, param: string, id: number): T | undefined => {
    try {
      return JSON.parse(read(operationId, { params: { [param]: String(id) } }).body) as T;
    } catch (error) {
      if (error instanceof ApiError && error.code === 'not_found') return undefined;
      throw error;
    }
  };
  const page = <T>(
    operationId: string,
    query: PageQuery<string>,
  ): { items: T[]; next: string | undefined; total: number } => {
    const answer = read(operationId, { query });
    const nextUrl = answer.headers?.['x-next'];
    const next =
      nextUrl === undefined
        ? undefined
        : (new URLSearchParams(nextUrl.slice(nextUrl.indexOf('?') + 1)).get('cursor') ?? undefined);
    return { items: JSON.parse(answer.body) as T[], next, total: Number(answer.headers?.['x-total-count']) };
  };

  return {
    pets: {
      get: (id) => getOne<Pet>('getPet', 'petId', id),
      list: (query = {}) => {
        const { items, next, total } = page<Pet>('listPets', query);
        return { pets: items, next, total };
      },
      create: (pet) => change<Pet>('createPet', { body: pet }),
    },
    orders: {
      get: (id) => getOne<Order>('getOrder', 'orderId', id),
      list: (query = {}) => {
        const { items, next, total } = page<Order>('listOrders', query);
        return { orders: items, next, total };
      },
      place: (petId) => change<Order>('placeOrder', { body: { petId } }),
      update: (id, status) => change<Order>('updateOrder', { params: { orderId: String(id) }, body: { status } }),
    },
  };
}

/** The query string a listing operation reads: numbers as plain digits, absent values left out. */
function queryString(query: PageQuery<string>): string {
  const params = new URLSearchParams();
  if (query.limit !== undefined) params.set('limit', String(query.limit));
  if (query.status !== undefined) params.set('status', query.status);
  if (query.cursor !== undefined) params.set('cursor', query.cursor);
  return params.toString();
}
