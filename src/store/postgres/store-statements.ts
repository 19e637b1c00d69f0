// Pieces of the statements of the PostgreSQL store's pets and orders: listings, the counts a write
// changes, the Idempotency-Key answer kept with a change, and the events a change records. Each is
// text made once per shape of change, so the server prepares each statement once per connection.
import type { EventType } from '../../events/event.js';
import type { OrderStatus } from '../../orders/schemas.js';
import { PET_STATUSES, type PetStatus } from '../../pets/schemas.js';
import type { IdempotencyRecord, OrderMove } from '../store.js';
import { eventCountColumn, orderCountColumn, petCountColumn } from './schema.js';

/**
 * The advisory locks under which pet and order ids are taken, each held to its transaction's commit.
 * Listings page in ascending id, and a cursor stands for "after this id": were two transactions to take
 * ids 7 and 8 and commit 8 first, a page read between the commits would show 8 without 7, and a client
 * paging at the end of the listing would step over 7 for good. Under the lock, a transaction takes its
 * ids only once the one before has committed (or rolled back), so an id is visible only after every
 * lower one. The creates of one turn share one statement (statement-batch.ts), so the lock is taken once
 * a batch, not once a pet. Any fixed 64-bit numbers, beside the migration lock's.
 */
export const PET_IDS_LOCK = '107014665707886';
export const ORDER_IDS_LOCK = '107014665707887';

/**
 * A CTE, `ids_locked`, that takes `lock` for the transaction. Materialized and scanned by the query that
 * calls nextval, so that the lock is held before the first id is taken.
 */
export const idsLockedClause = (lock: string): string =>
  `ids_locked AS MATERIALIZED (SELECT pg_advisory_xact_lock(${lock}))`;

/** The text after `{"id":N` of an item's JSON: ids come from the database, the rest from the request. */
export const afterId = (json: string): string => json.slice(json.indexOf(','));

/**
 * The statement that reads items by id for a batch of reads (statement-batch.ts): `$1` the ids asked, one
 * row each in the order asked, its `columns` null where no item has the id.
 */
export function byIdsQuery(table: 'pets' | 'orders', columns: readonly string[]): string {
  return `SELECT ${columns.map((column) => `t.${column}`).join(', ')}
       FROM unnest($1::bigint[]) WITH ORDINALITY AS r (id, n)
       LEFT JOIN ${table} AS t ON t.id = r.id
      ORDER BY r.n`;
}

/** The separator of a page's items in `pagesQuery`'s answer, a newline: the stored JSON, compact, never holds one unescaped. */
export const ITEM_SEPARATOR = '\n';

/**
 * The statement that reads a batch of pages (statement-batch.ts), each with its total: `$1` the ids each page
 * starts after, `$2` how many items each reads (one past its size, to know whether another page
 * follows), `$3` the status each is filtered by (null: none). One row per page, in the order asked:
 * its total (the counts table's, for its filter), how many items it found, and the items as one text,
 * each item `field,field,...,json` (`fields`: columns whose text holds no comma, then the JSON), the
 * items in id order, separated by ITEM_SEPARATOR. One text instead of a row per item: the client
 * then parses one field, not a row of fields per item. Each filter reads through its own index: the
 * branches of the UNION are gated on the page's filter, so only one of them runs for a page.
 */
export function pagesQuery<S extends string>(
  table: 'pets' | 'orders',
  statuses: readonly S[],
  column: (status: S) => string,
  fields: readonly string[],
): string {
  const columns = ['id', 'status', 'json', ...fields.filter((field) => !['id', 'status'].includes(field))];
  const branch = (where: string): string =>
    `(SELECT ${columns.join(', ')} FROM ${table} WHERE ${where} AND id > r.after_id ORDER BY id LIMIT r.size)`;
  const branches = [
    branch('r.status IS NULL'),
    ...statuses.map((status) => branch(`r.status = '${status}' AND status = '${status}'`)),
  ];
  const line = [...fields.map((field) => `p.${field}::text`), 'p.json'].join(" || ',' || ");
  return `SELECT CASE r.status ${statuses.map((status) => `WHEN '${status}' THEN t.${column(status)}`).join(' ')}
              ELSE ${statuses.map((status) => `t.${column(status)}`).join(' + ')} END AS total,
            page.found, page.items
       FROM unnest($1::bigint[], $2::int[], $3::text[]) WITH ORDINALITY AS r (after_id, size, status, n)
      CROSS JOIN (SELECT ${statuses.map((status) => `sum(${column(status)})::bigint AS ${column(status)}`).join(', ')} FROM counts) AS t
      CROSS JOIN LATERAL (
        SELECT count(*) AS found, string_agg(${line}, E'\\n' ORDER BY p.id) AS items
          FROM (${branches.join('\n          UNION ALL ')}) AS p
      ) AS page
      ORDER BY r.n`;
}

/**
 * The statement that creates a batch of pets (statement-batch.ts), each as its own create would: an id
 * from the sequence (in the order asked, under PET_IDS_LOCK), its row, its count, its Idempotency-Key answer when it has
 * one, its `pet.created` event (positions in the same order) and that event's deliveries, all in one
 * transaction. Parameters: `$1` category ids, `$2` statuses, `$3` each pet's JSON after its id, joined by
 * ITEM_SEPARATOR (one text: JSON in an array would be escaped and unescaped), `$4` each create's time
 * in ms and `$5` as RFC 3339, `$6`–`$10` each Idempotency-Key answer's scope, key, fingerprint, status and
 * expiry (nulls without one), `$11` the counts slot, `$12` the event ids' prefix, then the count of each
 * status among the pets, in PET_STATUSES' order. Rows: each pet's id and JSON, in the order asked, with
 * how many deliveries the statement added.
 */
export function createPetsStatement(statuses: readonly PetStatus[] = PET_STATUSES): string {
  const counted = [
    ...statuses.map((status, index) => `${petCountColumn(status)} = ${petCountColumn(status)} + $${13 + index}`),
    `${eventCountColumn('pet.created')} = ${eventCountColumn('pet.created')} + (SELECT count(*) FROM input)`,
  ];
  return `
    WITH input AS (
      SELECT * FROM unnest($1::bigint[], $2::text[], string_to_array($3, E'\\n'), $4::bigint[], $5::text[],
                           $6::text[], $7::text[], $8::text[], $9::int[], $10::bigint[])
        WITH ORDINALITY AS i (category_id, status, after_id, at_ms, at_text, scope, key, fingerprint, answer, expires_at, n)
    ),
    ${idsLockedClause(PET_IDS_LOCK)},
    -- Ids in the order asked: nextval is evaluated after the sort.
    numbered AS MATERIALIZED (SELECT i.*, nextval('pet_ids') AS id FROM input AS i, ids_locked ORDER BY i.n),
    created AS (
      INSERT INTO pets (id, category_id, status, json)
      SELECT id, category_id, status, '{"id":' || id || after_id FROM numbered
      RETURNING id, json
    ),
    counted AS (UPDATE counts SET ${counted.join(', ')} WHERE slot = $11),
    remembered AS (
      INSERT INTO idempotency_answers (scope, key, fingerprint, status, body, expires_at)
      SELECT n.scope, n.key, n.fingerprint, n.answer, c.json, n.expires_at
        FROM numbered AS n JOIN created AS c USING (id) WHERE n.scope IS NOT NULL
      ON CONFLICT (scope, key) DO UPDATE
        SET fingerprint = excluded.fingerprint, status = excluded.status, body = excluded.body, expires_at = excluded.expires_at
    ),
    recorded AS (
      INSERT INTO events (seq, type, at_ms, json)
      SELECT e.seq, 'pet.created', e.at_ms,
             '{"id":"' || $12::text || e.seq || '","type":"pet.created","timestamp":"' || e.at_text || '","data":' || e.json || '}'
        -- Positions in the order asked, as the ids.
        FROM (SELECT n.at_ms, n.at_text, c.json, nextval('event_seqs') AS seq
                FROM numbered AS n JOIN created AS c USING (id) ORDER BY n.n) AS e
      RETURNING seq, type, at_ms
    ),
    fanned_out AS (
      INSERT INTO deliveries (event_seq, webhook_id, next_attempt_at_ms)
      SELECT r.seq, w.id, r.at_ms FROM recorded AS r JOIN webhooks AS w ON w.status = 'enabled' AND r.type = ANY (w.events)
      RETURNING 1
    )
    SELECT c.id, c.json, ${FANNED_OUT} FROM numbered AS n JOIN created AS c USING (id) ORDER BY n.n`;
}

/** A pet to create, as createPetsStatement takes it. */
export interface NewPetOfBatch {
  categoryId: number;
  status: PetStatus;
  /** Its JSON after `{"id":N` (afterId). */
  afterId: string;
  atMs: number;
  remember: IdempotencyRecord | undefined;
}

/** The parameters of createPetsStatement for `pets`, with the counts slot and the event ids' prefix. */
export function createPetsParams(pets: readonly NewPetOfBatch[], slot: number, eventIdPrefix: string): unknown[] {
  return [
    pets.map((pet) => pet.categoryId),
    pets.map((pet) => pet.status),
    pets.map((pet) => pet.afterId).join(ITEM_SEPARATOR),
    pets.map((pet) => pet.atMs),
    pets.map((pet) => new Date(pet.atMs).toISOString()),
    pets.map((pet) => pet.remember?.scope ?? null),
    pets.map((pet) => pet.remember?.key ?? null),
    pets.map((pet) => pet.remember?.fingerprint ?? null),
    pets.map((pet) => pet.remember?.status ?? null),
    pets.map((pet) => pet.remember?.expiresAtMs ?? null),
    slot,
    eventIdPrefix,
    ...PET_STATUSES.map((status) => pets.filter((pet) => pet.status === status).length),
  ];
}

/** `SET` clauses of the counts table for the given changes of each column; a column named twice is summed. */
export function countChanges(changes: ReadonlyArray<[column: string, delta: number]>): string {
  const sums = new Map<string, number>();
  for (const [column, delta] of changes) sums.set(column, (sums.get(column) ?? 0) + delta);
  const sets = [...sums]
    .filter(([, delta]) => delta !== 0)
    .map(([column, delta]) => `${column} = ${column} + ${delta}`);
  // A change that moves nothing still locks and writes its slot, so every write has the same shape.
  return sets.length === 0 ? 'slot = slot' : sets.join(', ');
}

/**
 * The counts an order change makes: its pet leaves one status for another; the order joins one (and
 * leaves one, when it moves on); and its two events, order.created or order.updated, and pet.updated.
 */
export function orderCounts(
  petBefore: PetStatus,
  move: OrderMove,
  orderBefore: OrderStatus | undefined,
): Array<[string, number]> {
  const changes: Array<[string, number]> = [
    [petCountColumn(petBefore), -1],
    [petCountColumn(move.petStatus), 1],
    [orderCountColumn(move.orderStatus), 1],
  ];
  if (orderBefore !== undefined) changes.push([orderCountColumn(orderBefore), -1]);
  changes.push([eventCountColumn(orderBefore === undefined ? 'order.created' : 'order.updated'), 1]);
  changes.push([eventCountColumn('pet.updated'), 1]);
  return changes;
}

/** The idempotency record kept with a change, as the statement's last parameters ($k … $k+4), or nulls. */
export const rememberParams = (remember: IdempotencyRecord | undefined): unknown[] =>
  remember === undefined
    ? [null, null, null, null, null]
    : [remember.scope, remember.key, remember.fingerprint, remember.status, remember.expiresAtMs];

/** Keeps the created item's JSON (`jsonExpression`, from the CTE `created`) as the remembered answer. */
export const rememberClause = (first: number, jsonExpression: string): string => `
  remembered AS (
    INSERT INTO idempotency_answers (scope, key, fingerprint, status, body, expires_at)
    SELECT $${first}, $${first + 1}, $${first + 2}, $${first + 3}, ${jsonExpression}, $${first + 4}
      FROM created WHERE $${first}::text IS NOT NULL
    ON CONFLICT (scope, key) DO UPDATE
      SET fingerprint = excluded.fingerprint, status = excluded.status, body = excluded.body, expires_at = excluded.expires_at
  )`;

/** An event a change records: its type, and the SQL expression of its `data` (ready JSON text). */
export interface EventClause {
  type: EventType;
  data: string;
}

/**
 * The CTEs that record a change's events, in the order given, and fan each out to the enabled
 * subscriptions of its type (the transactional outbox: the change, its events and their deliveries
 * commit together or not at all). Parameters from `first`: the change's time in ms, the text an event
 * id starts with, and the time as RFC 3339. Each event's JSON is joined here from ready JSON texts in
 * the key order of `eventJson` (id, type, timestamp, data), never parsed: a name may hold what
 * PostgreSQL's JSON parser refuses (a lone surrogate, escaped).
 */
export function recordEventsClause(events: readonly EventClause[], first: number): string {
  const values = events.map((event, index) => `(${index + 1}, '${event.type}', ${event.data})`).join(', ');
  return `
  taken AS (SELECT nextval('event_seqs') AS seq FROM generate_series(1, ${events.length})),
  recorded AS (
    INSERT INTO events (seq, type, at_ms, json)
    SELECT s.seq, v.type, $${first}::bigint,
           '{"id":"' || $${first + 1}::text || s.seq || '","type":"' || v.type || '","timestamp":"' || $${first + 2}::text
             || '","data":' || v.data || '}'
      -- Positions are handed out in some order; the first event of the change takes the smallest.
      FROM (SELECT seq, row_number() OVER (ORDER BY seq) AS n FROM taken) AS s
      JOIN (VALUES ${values}) AS v (n, type, data) USING (n)
    RETURNING seq, type, at_ms
  ),
  fanned_out AS (
    INSERT INTO deliveries (event_seq, webhook_id, next_attempt_at_ms)
    SELECT r.seq, w.id, r.at_ms FROM recorded AS r JOIN webhooks AS w ON w.status = 'enabled' AND r.type = ANY (w.events)
    RETURNING 1
  )`;
}

/** How many deliveries `recordEventsClause` added, for the statement's result: if any, the workers are told. */
export const FANNED_OUT = '(SELECT count(*) FROM fanned_out) AS fanned';

/** The parameters of `recordEventsClause`: the change's time, the event ids' prefix, the time as RFC 3339. */
export const recordEventsParams = (atMs: number, idPrefix: string): unknown[] => [
  atMs,
  idPrefix,
  new Date(atMs).toISOString(),
];
