// The PostgreSQL store: every instance of the service shares one database. A read is one statement (a
// page and its total together), a pet's creation one statement (its own transaction), an order's change
// one transaction that locks the rows it decides on (SELECT … FOR UPDATE), so two instances can never
// sell one pet twice. Ids come from sequences, which never hand out a number twice, even when a
// transaction rolls back. Totals come from the counts table, which every write updates in the same
// transaction, so a listing's X-Total-Count costs a sum over a few rows, whatever the table's size.
// Every change records its events, and their deliveries to the subscriptions of their types, in that
// same statement (store-statements.ts); the webhook part of the store is webhook-store.ts.
// A write resolves only after COMMIT has returned: an answer 201 is durable on the server.
import { randomInt } from 'node:crypto';
import type { QueryResultRow } from 'pg';
import { eventId, eventIdLetters } from '../../events/event-id.js';
import type { KeyTable } from '../../keys/key-table.js';
import { ORDER_STATUSES, type OrderStatus } from '../../orders/schemas.js';
import { type StoredOrder, storedOrder } from '../../orders/stored-order.js';
import { type NewPet, PET_STATUSES, type PetStatus } from '../../pets/schemas.js';
import { type StoredPet, storedPet, withStatus } from '../../pets/stored-pet.js';
import type {
  DecideMove,
  DecidePlacement,
  IdempotencyRecord,
  IdempotencyTable,
  Page,
  PageRequest,
  Store,
} from '../store.js';
import type { Database } from './database.js';
import { pageOfText } from './page-of.js';
import { COUNT_SLOTS, orderCountColumn, petCountColumn } from './schema.js';
import { StatementBatch } from './statement-batch.js';
import {
  afterId,
  byIdsQuery,
  countChanges,
  createPetsParams,
  createPetsStatement,
  type NewPetOfBatch,
  FANNED_OUT,
  idsLockedClause,
  ORDER_IDS_LOCK,
  orderCounts,
  pagesQuery,
  recordEventsClause,
  recordEventsParams,
  rememberClause,
  rememberParams,
} from './store-statements.js';
import type { PostgresWebhookStore } from './webhook-store.js';

/** What a PostgresStore is made of; see openPostgresStore. */
export interface PostgresStoreParts {
  database: Database;
  cursorSecret: Buffer;
  keys: KeyTable;
  idempotency: IdempotencyTable;
  webhooks: PostgresWebhookStore;
  /** Called by close() before the pool ends: stops what runs on its own (the sweep of expired rows). */
  onClose: () => Promise<void>;
}

interface PetRow extends QueryResultRow {
  id: string;
  status: PetStatus;
  json: string;
}

/** What tells two page requests apart: asked twice in one turn, a page is read once. */
const pageKey = (request: PageRequest<string>): string => `${request.status ?? ''}/${request.afterId}/${request.limit}`;

/** How many deliveries a change's statement added (see FANNED_OUT). */
interface FannedRow extends QueryResultRow {
  fanned: string;
}

interface OrderRow extends QueryResultRow {
  id: string;
  pet_id: string;
  status: OrderStatus;
  created_at: string;
}

interface OrderWithPetRow extends OrderRow {
  pet_status: PetStatus;
  pet_json: string;
}

const petOf = (row: { id: string; status: PetStatus; json: string }): StoredPet => ({
  id: Number(row.id),
  status: row.status,
  json: row.json,
});

const orderOf = (row: OrderRow): StoredOrder =>
  storedOrder(Number(row.id), Number(row.pet_id), row.status, row.created_at);

const CREATE_PETS = createPetsStatement(PET_STATUSES);
const PETS_BY_ID = byIdsQuery('pets', ['status', 'json']);
const ORDERS_BY_ID = byIdsQuery('orders', ['pet_id', 'status', 'created_at']);
/** A pet of a page: `id,status,json`. */
const PET_PAGES = pagesQuery('pets', PET_STATUSES, petCountColumn, ['id', 'status']);
/** An order of a page: `id,status,pet_id,created_at,json`. */
const ORDER_PAGES = pagesQuery('orders', ORDER_STATUSES, orderCountColumn, ['id', 'status', 'pet_id', 'created_at']);

/** The Store on a PostgreSQL database shared by every instance. */
export class PostgresStore implements Store {
  readonly cursorSecret: Buffer;
  readonly keys: KeyTable;
  readonly idempotency: IdempotencyTable;
  readonly webhooks: PostgresWebhookStore;
  readonly #database: Database;
  /** The text every event id of this store starts with: the id of position 0 without its digit. */
  readonly #eventIdPrefix: string;
  readonly #onClose: () => Promise<void>;
  /** Requests batched by turn of the event loop (statement-batch.ts): one statement answers each kind's reads of a turn. */
  readonly #petsById = new StatementBatch<number, StoredPet | undefined>(
    async (ids) =>
      (await this.#database.texts(this.#database.statement(PETS_BY_ID, [ids]))).map((row, index) =>
        row[1] === null || row[1] === undefined
          ? undefined
          : { id: ids[index] as number, status: row[0] as PetStatus, json: row[1] },
      ),
    (id) => id,
  );
  readonly #ordersById = new StatementBatch<number, StoredOrder | undefined>(
    async (ids) =>
      (await this.#database.texts(this.#database.statement(ORDERS_BY_ID, [ids]))).map((row, index) =>
        row[0] === null || row[0] === undefined
          ? undefined
          : storedOrder(ids[index] as number, Number(row[0]), row[1] as OrderStatus, row[2] as string),
      ),
    (id) => id,
  );
  readonly #petPages = new StatementBatch<PageRequest<PetStatus>, Page<StoredPet>>(
    async (requests) =>
      (await this.#pages(PET_PAGES, requests)).map((row, index) =>
        pageOfText(row, (requests[index] as PageRequest<PetStatus>).limit, (fields, end) => ({
          id: fields.number(),
          status: fields.status() as PetStatus,
          json: fields.json(end),
        })),
      ),
    pageKey,
  );
  readonly #orderPages = new StatementBatch<PageRequest<OrderStatus>, Page<StoredOrder>>(
    async (requests) =>
      (await this.#pages(ORDER_PAGES, requests)).map((row, index) =>
        pageOfText(row, (requests[index] as PageRequest<OrderStatus>).limit, (fields, end) => ({
          id: fields.number(),
          status: fields.status() as OrderStatus,
          petId: fields.number(),
          createdAt: fields.text(),
          json: fields.json(end),
        })),
      ),
    pageKey,
  );

  // One create statement at a time: each takes PET_IDS_LOCK to its commit (store-statements.ts).
  readonly #creates = new StatementBatch<NewPetOfBatch, StoredPet>(
    async (pets) => {
      const rows = await this.#database.texts(
        this.#database.statement(CREATE_PETS, createPetsParams(pets, randomInt(COUNT_SLOTS), this.#eventIdPrefix)),
      );
      this.#announceIf({ fanned: rows[0]?.[2] ?? '0' });
      return rows.map((row, index) => ({
        id: Number(row[0]),
        status: (pets[index] as NewPetOfBatch).status,
        json: row[1] as string,
      }));
    },
    undefined,
    { oneAtATime: true },
  );

  constructor(parts: PostgresStoreParts) {
    this.#database = parts.database;
    this.cursorSecret = parts.cursorSecret;
    this.keys = parts.keys;
    this.idempotency = parts.idempotency;
    this.webhooks = parts.webhooks;
    this.#eventIdPrefix = eventId(eventIdLetters(parts.cursorSecret), 0).slice(0, -1);
    this.#onClose = parts.onClose;
  }

  getPet(id: number): Promise<StoredPet | undefined> {
    return this.#petsById.ask(id);
  }

  pagePets(request: PageRequest<PetStatus>): Promise<Page<StoredPet>> {
    return this.#petPages.ask(request);
  }

  createPet(pet: Required<NewPet>, atMs: number, remember?: IdempotencyRecord): Promise<StoredPet> {
    // The name is in the JSON only: a text column cannot hold the U+0000 a name may contain.
    const json = storedPet(0, pet.name, pet.categoryId, pet.status).json;
    return this.#creates.ask({
      categoryId: pet.categoryId,
      status: pet.status,
      afterId: afterId(json),
      atMs,
      remember,
    });
  }

  getOrder(id: number): Promise<StoredOrder | undefined> {
    return this.#ordersById.ask(id);
  }

  pageOrders(request: PageRequest<OrderStatus>): Promise<Page<StoredOrder>> {
    return this.#orderPages.ask(request);
  }

  async placeOrder(
    petId: number,
    createdAt: string,
    decide: DecidePlacement,
    remember?: IdempotencyRecord,
  ): Promise<StoredOrder> {
    const { order, written } = await this.#database.transaction(async (client) => {
      const { rows } = await client.query<PetRow>(
        this.#database.statement('SELECT id, status, json FROM pets WHERE id = $1 FOR UPDATE', [petId]),
      );
      const pet = rows[0] === undefined ? undefined : petOf(rows[0]);
      const move = decide(pet);
      if (pet === undefined) throw new TypeError('the rule for placing an order accepted a pet that does not exist');
      const json = storedOrder(0, petId, move.orderStatus, createdAt).json;
      const text = `
        WITH ${idsLockedClause(ORDER_IDS_LOCK)},
        created AS (
          INSERT INTO orders (id, pet_id, status, created_at, json)
          SELECT next.id, $1, $2, $3, '{"id":' || next.id || $4 FROM (SELECT nextval('order_ids') AS id FROM ids_locked) AS next
          RETURNING id, json
        ),
        pet AS (UPDATE pets SET status = $5, json = $6 WHERE id = $1),
        counted AS (UPDATE counts SET ${countChanges(orderCounts(pet.status, move, undefined))} WHERE slot = $7),
        ${rememberClause(8, 'created.json')},
        ${recordEventsClause(
          [
            { type: 'order.created', data: '(SELECT json FROM created)' },
            { type: 'pet.updated', data: '$6::text' },
          ],
          13,
        )}
        SELECT id, ${FANNED_OUT} FROM created`;
      const params = [
        petId,
        move.orderStatus,
        createdAt,
        afterId(json),
        move.petStatus,
        withStatus(pet, move.petStatus).json,
        randomInt(COUNT_SLOTS),
        ...rememberParams(remember),
        ...recordEventsParams(Date.parse(createdAt), this.#eventIdPrefix),
      ];
      const result = await client.query<{ id: string } & FannedRow>(this.#database.statement(text, params));
      const order = storedOrder(Number(result.rows[0]?.id), petId, move.orderStatus, createdAt);
      return { order, written: result.rows[0] };
    });
    this.#announceIf(written);
    return order;
  }

  async moveOrder(orderId: number, decide: DecideMove, atMs: number): Promise<StoredOrder> {
    const { moved, written } = await this.#database.transaction(async (client) => {
      // The order and its pet are locked together (every order has its pet: a foreign key says so).
      const { rows } = await client.query<OrderWithPetRow>(
        this.#database.statement(
          `SELECT o.id, o.pet_id, o.status, o.created_at, p.status AS pet_status, p.json AS pet_json
             FROM orders AS o JOIN pets AS p ON p.id = o.pet_id
            WHERE o.id = $1 FOR UPDATE`,
          [orderId],
        ),
      );
      const row = rows[0];
      const order = row === undefined ? undefined : orderOf(row);
      const pet =
        row === undefined ? undefined : { id: Number(row.pet_id), status: row.pet_status, json: row.pet_json };
      const move = decide(order, pet);
      if (order === undefined || pet === undefined)
        throw new TypeError('the rule for moving an order accepted an order or pet that does not exist');
      const moved = storedOrder(order.id, order.petId, move.orderStatus, order.createdAt);
      const text = `
        WITH moved AS (UPDATE orders SET status = $2, json = $3 WHERE id = $1),
        pet AS (UPDATE pets SET status = $5, json = $6 WHERE id = $4),
        counted AS (UPDATE counts SET ${countChanges(orderCounts(pet.status, move, order.status))} WHERE slot = $7),
        ${recordEventsClause(
          [
            { type: 'order.updated', data: '$3::text' },
            { type: 'pet.updated', data: '$6::text' },
          ],
          8,
        )}
        SELECT ${FANNED_OUT}`;
      const result = await client.query<FannedRow>(
        this.#database.statement(text, [
          order.id,
          move.orderStatus,
          moved.json,
          pet.id,
          move.petStatus,
          withStatus(pet, move.petStatus).json,
          randomInt(COUNT_SLOTS),
          ...recordEventsParams(atMs, this.#eventIdPrefix),
        ]),
      );
      return { moved, written: result.rows[0] };
    });
    this.#announceIf(written);
    return moved;
  }

  async ping(): Promise<void> {
    await this.#database.query({ text: 'SELECT 1' });
  }

  async close(): Promise<void> {
    await this.#onClose();
    await this.#database.pool.end();
  }

  /** Tells every instance of deliveries a committed change added (see DeliveryChannel: after the commit). */
  #announceIf(written: FannedRow | undefined): void {
    if (Number(written?.fanned ?? 0) > 0) this.webhooks.announce();
  }

  /** The rows of a batch of page reads (pagesQuery), one per request: total, items found, items. */
  async #pages<S extends string>(
    query: string,
    requests: readonly PageRequest<S>[],
  ): Promise<Array<Array<string | null>>> {
    return this.#database.texts(
      this.#database.statement(query, [
        requests.map((request) => request.afterId),
        requests.map((request) => request.limit + 1),
        requests.map((request) => request.status ?? null),
      ]),
    );
  }
}
