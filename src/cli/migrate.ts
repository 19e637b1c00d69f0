// `animal-store migrate --data-dir DIR --database-url URL`: copies an embedded store into an empty
// PostgreSQL database, for a move from one instance to many. Everything is kept: pets, orders and ids
// (the sequences continue after the highest id the directory ever handed out), the remembered
// Idempotency-Key answers still alive, the keys (hashes), and the cursor secret, so that clients'
// cursors and retries go on working. It runs in one transaction, checks the counts before COMMIT, and
// refuses a database that already holds data: nothing is merged or overwritten.
import { access } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type pg from 'pg';
import { systemClock } from '../clock.js';
import { parseSettingText, SETTINGS } from '../config.js';
import { ORDER_STATUSES } from '../orders/schemas.js';
import { PET_STATUSES } from '../pets/schemas.js';
import { describeDatabase } from '../store/postgres/faults.js';
import { EXIT_CODES_HELP, parseCommandArgs } from './flags.js';
import { asUsage, dataDirUsageError, UsageError } from './usage-error.js';

export const MIGRATE_HELP = `Usage: animal-store migrate --data-dir DIR --database-url URL

Copies the embedded store in DIR (pets, orders, ids, remembered Idempotency-Key answers, API keys and
the cursor secret) into the PostgreSQL database at URL, in one transaction, and checks the counts.
The database must hold no animal-store data yet; its schema is created. Stop the service on DIR
first: the directory's lock is taken while copying. DIR itself is left as it was.

Options:
  --data-dir DIR       The embedded store to copy (default ANIMAL_STORE_DATA_DIR, then ./data).
  --database-url URL   The PostgreSQL database to copy into (default ANIMAL_STORE_DATABASE_URL).
  -h, --help           Show this help.

Example:
  animal-store migrate --data-dir ./data --database-url postgres://animals@db.internal:5432/animals

${EXIT_CODES_HELP}
`;

/** Rows sent per INSERT: large enough to be quick, small enough to keep each statement modest. */
const BATCH_ROWS = 5000;

/** Runs the migrate command; prints a summary to stdout. */
export async function runMigrate(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  print: (text: string) => void,
): Promise<void> {
  const { values } = parseCommandArgs(
    argv,
    { 'data-dir': { type: 'string' }, 'database-url': { type: 'string' } },
    'animal-store migrate',
    false,
  );
  if (values.help === true) return print(MIGRATE_HELP);
  const dataDir = values['data-dir'] ?? env.ANIMAL_STORE_DATA_DIR ?? './data';
  // An empty variable is as good as none (a shell's `VAR= command`).
  const databaseUrl = values['database-url'] ?? (env.ANIMAL_STORE_DATABASE_URL || undefined);
  if (databaseUrl === undefined)
    throw new UsageError(
      'migrate needs --database-url postgres://… (the database to copy into; see animal-store migrate --help)',
    );
  const urlSetting = SETTINGS.find((setting) => 'option' in setting && setting.option === 'databaseUrl');
  if (urlSetting !== undefined)
    asUsage(() => parseSettingText(urlSetting, databaseUrl, '--database-url'), 'animal-store migrate');
  const { JOURNAL_FILE, openEmbeddedStore } = await import('../store/embedded/open-embedded-store.js');
  const holdsStore = await access(join(dataDir, JOURNAL_FILE)).then(
    () => true,
    () => false,
  );
  if (!holdsStore)
    throw new Error(
      `${resolve(dataDir)} holds no animal store (no ${JOURNAL_FILE}); pass the --data-dir the service uses`,
    );
  const source = await openEmbeddedStore({
    dataDir,
    clock: systemClock,
    durability: 'always',
    fsyncIntervalMs: 1000,
    compactMinRecords: Number.MAX_SAFE_INTEGER,
    warn: (line) => process.stderr.write(`animal-store migrate: ${line}\n`),
  }).catch((error: unknown) => {
    throw dataDirUsageError(error, dataDir) ?? error;
  });
  try {
    const { openPool } = await import('../store/postgres/open-postgres-store.js');
    const { pool } = await openPool(databaseUrl, 1);
    try {
      const copied = await copyInto(pool, source.state, await source.keys.list(), source.cursorSecret);
      print(
        `Copied ${copied.pets} pets, ${copied.orders} orders, ${copied.answers} remembered answers and ${copied.keys} keys ` +
          `from ${resolve(dataDir)} into PostgreSQL at ${describeDatabase(databaseUrl)}; the counts match.\n` +
          `Start the service with --database-url; ${resolve(dataDir)} was left as it was.\n`,
      );
    } finally {
      await pool.end();
    }
  } finally {
    await source.close();
  }
}

type EmbeddedState = Awaited<
  ReturnType<typeof import('../store/embedded/open-embedded-store.js').openEmbeddedStore>
>['state'];
type ApiKeys = Awaited<ReturnType<import('../store/store.js').KeyTable['list']>>;

/** How many rows of each kind were copied. */
interface Copied {
  pets: number;
  orders: number;
  answers: number;
  keys: number;
}

/** Copies everything in one transaction, then compares the database's counts with the source's. */
async function copyInto(pool: pg.Pool, state: EmbeddedState, keys: ApiKeys, cursorSecret: Buffer): Promise<Copied> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ rows: string }>(
      `SELECT (SELECT count(*) FROM pets) + (SELECT count(*) FROM orders) + (SELECT count(*) FROM api_keys)
            + (SELECT count(*) FROM idempotency_answers) AS rows`,
    );
    if (Number(rows[0]?.rows) > 0)
      throw new Error('the database already holds animal-store data; migrate copies into an empty database only');

    const pets = [...state.pets.values()];
    await insertBatches(client, pets, (batch) => {
      // Name and category are read from the JSON here, not by the server: a name may hold characters
      // (a lone surrogate, escaped in the JSON) that PostgreSQL's JSON parser refuses.
      const fields = batch.map((pet) => JSON.parse(pet.json) as { name: string; categoryId: number });
      return {
        text: `INSERT INTO pets (id, name, category_id, status, json)
               SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::text[])`,
        values: [
          batch.map((pet) => pet.id),
          fields.map((pet) => pet.name),
          fields.map((pet) => pet.categoryId),
          batch.map((pet) => pet.status),
          batch.map((pet) => pet.json),
        ],
      };
    });
    const orders = [...state.orders.values()];
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
    const answers = [...state.idempotency.live(Date.now())];
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
      state.pets.nextId,
      state.orders.nextId,
    ]);
    const counts = [
      ...PET_STATUSES.map((status) => `pets_${status} = ${state.pets.count(status)}`),
      ...ORDER_STATUSES.map((status) => `orders_${status} = ${state.orders.count(status)}`),
    ];
    await client.query(`UPDATE counts SET ${counts.join(', ')} WHERE slot = 0`);
    await client.query("UPDATE settings SET value = $1 WHERE name = 'cursor_secret'", [cursorSecret.toString('hex')]);

    const check = await client.query<{ pets: string; orders: string; answers: string; keys: string }>(
      `SELECT (SELECT count(*) FROM pets) AS pets, (SELECT count(*) FROM orders) AS orders,
              (SELECT count(*) FROM idempotency_answers) AS answers, (SELECT count(*) FROM api_keys) AS keys`,
    );
    const found = check.rows[0];
    const expected: Copied = { pets: pets.length, orders: orders.length, answers: answers.length, keys: keys.length };
    for (const name of ['pets', 'orders', 'answers', 'keys'] as const) {
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

/** Sends `items` in batches of BATCH_ROWS, each as one statement. */
async function insertBatches<T>(
  client: pg.PoolClient,
  items: readonly T[],
  statement: (batch: readonly T[]) => pg.QueryConfig,
): Promise<void> {
  for (let start = 0; start < items.length; start += BATCH_ROWS) {
    await client.query(statement(items.slice(start, start + BATCH_ROWS)));
  }
}
