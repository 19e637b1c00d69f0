// PostgreSQL for tests: the server of this machine (ANIMAL_STORE_TEST_DATABASE_URL, by default
// postgres://postgres@127.0.0.1:5432/postgres), a database of its own per test process, and a fresh
// schema per service within it, so runs and services never see each other's rows. Unreachable, the
// tests that need it are skipped with one line, or fail when ANIMAL_STORE_TEST_SERVICES=required.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { MIGRATIONS } from '../../src/store/postgres/schema.js';

/** The server tests create their databases on. */
export const ADMIN_URL = process.env.ANIMAL_STORE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** Set in CI: a backing server that cannot be reached fails the tests instead of skipping them. */
export const SERVICES_REQUIRED = process.env.ANIMAL_STORE_TEST_SERVICES === 'required';

/** Why PostgreSQL tests cannot run here (a skip reason), or undefined when they can; throws when required. */
export async function postgresSkipReason(): Promise<string | undefined> {
  const host = new URL(ADMIN_URL).hostname;
  if (host !== '127.0.0.1' && host !== 'localhost' && host !== '::1') {
    throw new Error(`ANIMAL_STORE_TEST_DATABASE_URL must name a loopback server, not ${host}`);
  }
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    const reason = `PostgreSQL is not reachable at ${host} (${(error as Error).message || (error as { code?: string }).code}); set ANIMAL_STORE_TEST_DATABASE_URL`;
    if (SERVICES_REQUIRED) throw new Error(`${reason}; ANIMAL_STORE_TEST_SERVICES=required`);
    return reason;
  } finally {
    await client.end().catch(() => {});
  }
}

/** The URL of database `name` on the test server. */
export function databaseUrl(name: string, search = ''): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  url.search = search;
  return url.toString();
}

/** Runs one statement on the test server's admin database. */
export async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** A new, empty database for this test process, and how to drop it. */
export async function createTestDatabase(): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `animal_store_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  return {
    name,
    url: databaseUrl(name),
    drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/** A new, empty schema in `database` (a URL), and the URL whose connections use it. */
export async function createTestSchema(database: string): Promise<string> {
  const schema = `s_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await client.end();
  }
  const url = new URL(database);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

/** Runs `text` on `url` and returns the rows. */
export async function queryRows<R extends pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/**
 * The database the shared contract suite runs its services on, when it runs on PostgreSQL (see
 * test/store/postgres-contract.test.ts); undefined runs them on the embedded store.
 */
export const CONTRACT_DATABASE_VARIABLE = 'ANIMAL_STORE_TEST_CONTRACT_DATABASE';

/** Makes the schema of `client`'s new database what a release at `version` left: its migrations, and their record. */
export async function migrateTo(client: pg.Client, version: number): Promise<void> {
  for (const migration of MIGRATIONS.slice(0, version)) await client.query(migration);
  await client.query(
    'CREATE TABLE schema_migrations (version int PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  for (let applied = 1; applied <= version; applied++)
    await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [applied]);
}
