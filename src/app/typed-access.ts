// Typed access to the store for a program that embeds it: the service layer's operations, called without
// HTTP. The service checks their input itself, as it does for the API, so validation, id assignment,
// durability, conflicts and errors are exactly the API's (the same ApiErrors) and nothing can bypass them.
// What belongs to HTTP (keys, rate limits, headers, the getPet sunset) does not apply.
import type { Awaitable } from '../core/awaitable.js';
import { ApiError } from '../core/errors.js';
import type { Order, OrderStatus } from '../orders/schemas.js';
import type { NewPet, Pet, PetStatus } from '../pets/schemas.js';
import type { Service } from '../service/service.js';

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
  get(id: number): Promise<Pet | undefined>;
  /** One page in ascending id order, as `GET /pets` answers it; `next` is undefined on the last page. */
  list(query?: PageQuery<PetStatus>): Promise<{ pets: Pet[]; next: string | undefined; total: number }>;
  /** Creates a pet as `POST /pets` does: validated, and durable before it resolves. */
  create(pet: NewPet): Promise<Pet>;
}

/** The orders (beta): read, list, place and move on. */
export interface OrderAccess {
  /** The order with `id`, or undefined when there is none. */
  get(id: number): Promise<Order | undefined>;
  /** One page in ascending id order, as `GET /store/orders` answers it. */
  list(query?: PageQuery<OrderStatus>): Promise<{ orders: Order[]; next: string | undefined; total: number }>;
  /** Places an order for an available pet (which becomes pending); 404 or 409 as an ApiError otherwise. */
  place(petId: number): Promise<Order>;
  /** Moves a placed order to delivered (its pet sold) or cancelled (its pet available again). */
  update(id: number, status: 'delivered' | 'cancelled'): Promise<Order>;
}

/** Typed access over the service, whose operations check their input as they do for HTTP. */
export function typedAccess(service: Service): { pets: PetAccess; orders: OrderAccess } {
  return {
    pets: {
      get: async (id) => {
        const found = await orMissing(() => service.pets.get(id));
        return found === undefined ? undefined : (JSON.parse(found.json) as Pet);
      },
      list: async (query = {}) => {
        const page = await service.pets.list(query);
        return { pets: page.items.map((pet) => JSON.parse(pet.json) as Pet), next: page.next, total: page.total };
      },
      create: async (pet) => JSON.parse((await service.pets.create(pet)).json) as Pet,
    },
    orders: {
      get: async (id) => {
        const found = await orMissing(() => service.orders.get(id));
        return found === undefined ? undefined : (JSON.parse(found.json) as Order);
      },
      list: async (query = {}) => {
        const page = await service.orders.list(query);
        return {
          orders: page.items.map((order) => JSON.parse(order.json) as Order),
          next: page.next,
          total: page.total,
        };
      },
      place: async (petId) => JSON.parse((await service.orders.place({ petId })).json) as Order,
      update: async (id, status) => JSON.parse((await service.orders.move(id, { status })).json) as Order,
    },
  };
}

/** The result of `read`, or undefined when it is `not_found`. */
async function orMissing<T>(read: () => Awaitable<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ApiError && error.code === 'not_found') return undefined;
    throw error;
  }
}
