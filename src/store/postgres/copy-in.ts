// Copies a whole store into an empty PostgreSQL database (`animal-store migrate`), in one transaction:
// pets, orders and the ids that come next (ids are never reused, even across a move), the remembered
// Idempotency-Key answers still alive, the keys (hashes), the cursor secret, and the events,
// subscriptions (secrets included), pending deliveries and attempts (copy-webhooks.ts), so that
// clients' cursors and retries go on working, event ids stay the same and deliveries continue. It
// refuses a database that already holds data (nothing is merged or overwritten) and checks the counts
// before COMMIT.
import type pg from 'pg';
import type { ApiKey } from '../../keys/api-key.js';
import { ORDER_STATUSES } from '../../orders/schemas.js';
import type { StoredOrder } from '../../orders/stored-order.js';
import { PET_STATUSES } from '../../pets/schemas.js';
import type { StoredPet } from '../../pets/stored-pet.js';
import type { IdempotencyRecord } from '../store.js';
import { type CopiedWebhooks, copyWebhooks, insertBatches, type WebhookContents } from './copy-webhooks.js';

/** Everything a store holds, as read from the store being moved. */
export interface StoreContents extends WebhookContents {
  pets: readonly StoredPet[];
  orders: readonly StoredOrder[];
  /** The remembered Idempotency-Key answers still alive, with their bodies. */
  answers: readonly (IdempotencyRecord & { body: string })[];
  keys: readonly ApiKey[];
  /** The ids the store would hand out next. */
  nextPetId: number;
  nextOrderId: number;
  cursorSecret: Buffer;
}

/** How many of `items` have `status`. */
function countOf(items: readonly { status: string }[], status: string): number {
  let count = 0;
  for (const item of items) if (item.status === status) count++;
  return count;
}

/** How many rows of each kind were copied. */
export interface Copied extends CopiedWebhooks {
  pets: number;
  orders: number;
  answers: number;
  keys: number;
}

/** Copies everything in one transaction, then compares the database's counts with the source's. */
export async function copyIntoEmpty(pool: pg.Pool, contents: StoreContents): Promise<Copied> {
  const { pets, orders, answers, keys, cursorSecret } = contents;
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ rows: string }>(
      `SELECT (SELECT count(*) FROM pets) + (SELECT count(*) FROM orders) + (SELECT count(*) FROM api_keys)
            + (SELECT count(*) FROM idempotency_answers) + (SELECT count(*) FROM events)
            + (SELECT count(*) FROM webhooks) AS rows`,
    );
    if (Number(rows[0]?.rows) > 0)
      throw new Error('the database already holds animal-store data; migrate copies into an empty database only');

    await insertBatches(client, pets, (batch) => {
      // The category is read from the JSON here, not by the server: a name may hold characters (a
      // lone surrogate, escaped in the JSON) that PostgreSQL's JSON parser refuses. The name itself
      // lives in the JSON only: it may hold U+0000, which a text column cannot (schema.ts, migration 2).
      const fields = batch.map((pet) => JSON.parse(pet.json) as { categoryId: number });
      return {
        text: `INSERT INTO pets (id, category_id, status, json)
               SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[])`,
        values: [
          batch.map((pet) => pet.id),
          fields.map((pet) => pet.categoryId),
          batch.map((pet) => pet.status),
          batch.map((pet) => pet.json),
        ],
      };
    });
    await insertBatches(client, orders, (batch) => ({
      text: `INSERT INTO orders (id, pet_id, status, created_at, json)
             SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[])`,
      values: [
        batch.map((order) => order.id),
        batch.map((order) => order.petId),
        batch.map((order) => order.status),
        batch.map((order) => order.createdAt),
        batch.map((order) => order.json),
      ],
    }));
    await insertBatches(client, answers, (batch) => ({
      text: `INSERT INTO idempotency_answers (scope, key, fingerprint, status, body, expires_at)
             SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::bigint[])`,
      values: [
        batch.map((entry) => entry.scope),
        batch.map((entry) => entry.key),
        batch.map((entry) => entry.fingerprint),
        batch.map((entry) => entry.status),
        batch.map((entry) => entry.body),
        batch.map((entry) => entry.expiresAtMs),
      ],
    }));
    for (const key of keys) {
      await client.query(
        `INSERT INTO api_keys (id, name, plan, per_minute, per_day, hash, created_at, revoked_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [key.id, key.name, key.plan, key.perMinute, key.perDay, key.hash, key.createdAt, key.revokedAt],
      );
    }
    // The next ids are those the directory would have handed out: ids are never reused, even across a move.
    await client.query("SELECT setval('pet_ids', $1, false), setval('order_ids', $2, false)", [
      contents.nextPetId,
      contents.nextOrderId,
    ]);
    const counts = [
      ...PET_STATUSES.map((status) => `pets_${status} = ${countOf(pets, status)}`),
      ...ORDER_STATUSES.map((status) => `orders_${status} = ${countOf(orders, status)}`),
    ];
    await client.query(`UPDATE counts SET ${counts.join(', ')} WHERE slot = 0`);
    await client.query("UPDATE settings SET value = $1 WHERE name = 'cursor_secret'", [cursorSecret.toString('hex')]);
    const webhooks = await copyWebhooks(client, contents, cursorSecret);

    const check = await client.query<Record<keyof Copied, string>>(
      `SELECT (SELECT count(*) FROM pets) AS pets, (SELECT count(*) FROM orders) AS orders,
              (SELECT count(*) FROM idempotency_answers) AS answers, (SELECT count(*) FROM api_keys) AS keys,
              (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM webhooks) AS subscriptions,
              (SELECT count(*) FROM deliveries) AS deliveries, (SELECT count(*) FROM attempts) AS attempts`,
    );
    const found = check.rows[0];
    const expected: Copied = {
      pets: pets.length,
      orders: orders.length,
      answers: answers.length,
      keys: keys.length,
      ...webhooks,
    };
    for (const name of Object.keys(expected) as (keyof Copied)[]) {
      if (Number(found?.[name]) !== expected[name])
        throw new Error(`the copy holds ${found?.[name]} ${name}, not ${expected[name]}; nothing was kept`);
    }
    await client.query('COMMIT');
    return expected;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
