// Bringing a PostgreSQL schema up to date is start-up work, not a request: it is not cut off by the
// statement timeout that bounds a request's wait on the database. Here another session holds the
// migration lock for longer than that timeout (as an instance migrating a large table would), and the
// store still opens once the lock is let go.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { openPool, STATEMENT_TIMEOUT_MS } from '../../src/store/postgres/open-postgres-store.js';
import { MIGRATION_LOCK, SCHEMA_VERSION } from '../../src/store/postgres/schema.js';
import { createTestDatabase, createTestSchema, postgresSkipReason, queryRows } from '../helpers/postgres.js';

const skip = await postgresSkipReason();
let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
before(async () => {
  if (skip === undefined) database = await createTestDatabase();
});
after(async () => {
  await database?.drop();
});

test('a migration waits for another one however long it takes, past the statement timeout', { skip }, async () => {
  const url = await createTestSchema(database?.url ?? '');
  const holder = new pg.Client({ connectionString: url });
  // Ended by the database's drop if the test fails half-way: nothing to report then.
  holder.on('error', () => {});
  await holder.connect();
  try {
    await holder.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK})`);
    let opened = false;
    const opening = openPool(url, 2).then((result) => {
      opened = true;
      return result;
    });
    await new Promise((resolve) => setTimeout(resolve, STATEMENT_TIMEOUT_MS + 1000));
    assert.equal(opened, false, 'the migration waited for the lock');
    await holder.query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`);
    const { pool } = await opening;
    await pool.end();
  } finally {
    await holder.end();
  }
  const rows = await queryRows<{ version: number }>(url, 'SELECT max(version) AS version FROM schema_migrations');
  assert.equal(rows[0]?.version, SCHEMA_VERSION);
});
