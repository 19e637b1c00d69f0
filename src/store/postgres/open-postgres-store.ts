// Opening the PostgreSQL store: connect (a database that cannot be reached stops the start with one
// line naming its address and the cause), bring the schema up to date, read the shared cursor secret,
// and set up the pool every request uses.
import pg from 'pg';
import type { Clock } from '../../core/clock.js';
import { Database } from './database.js';
import { DeliveryChannel } from './delivery-channel.js';
import { describeDatabase } from './faults.js';
import { PostgresIdempotencyTable, sweepExpired } from './idempotency-table.js';
import { PostgresKeyTable } from './key-table.js';
import { PostgresStore } from './postgres-store.js';
import { migrate } from './schema.js';
import { PostgresWebhookStore } from './webhook-store.js';

/** How long a statement may run before the server cancels it, so that no request hangs on the database. */
export const STATEMENT_TIMEOUT_MS = 5000;
/** How long a request waits for a connection (a new one, or a free one of the pool). */
const CONNECT_TIMEOUT_MS = 5000;
/** How often expired Idempotency-Key answers and abandoned claims are deleted. */
const SWEEP_INTERVAL_MS = 60_000;

/** How to open a PostgreSQL store. */
export interface PostgresStoreOptions {
  /** A libpq connection URI: postgres://user:password@host:port/database?options. */
  databaseUrl: string;
  /** Connections of this instance's pool. */
  poolSize: number;
  clock: Clock;
  warn: (line: string) => void;
}

/** The connection settings every connection of a store uses. */
export function connectionConfig(databaseUrl: string): pg.ClientConfig {
  return {
    connectionString: databaseUrl,
    application_name: 'animal-store',
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    // The client gives up a little after the server should have: a server that no longer answers at all.
    query_timeout: STATEMENT_TIMEOUT_MS + 2000,
    // A transaction left open by a stuck client must not hold its row locks for long.
    idle_in_transaction_session_timeout: 2 * STATEMENT_TIMEOUT_MS,
    keepAlive: true,
  };
}

/** The cause of a failed connection, as one short phrase. */
export function causeOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return causeOf(error.errors[0]);
  if (error instanceof Error) return error.message || (error as { code?: string }).code || error.name;
  return String(error);
}

/**
 * Why the first connection failed, in one line: a server that answered with a refusal is named as such
 * (the database does not exist, the login was refused), with what to do; anything else is a server
 * that cannot be reached.
 */
export function connectFailure(error: unknown, databaseUrl: string): string {
  const where = describeDatabase(databaseUrl);
  const code = (error as { code?: unknown }).code;
  // SQLSTATE 3D000 invalid_catalog_name; 28P01 invalid_password; 28000 invalid_authorization_specification
  // (no such role, or no pg_hba.conf entry for this host, user and database).
  if (code === '3D000') {
    const command = createdbCommand(databaseUrl);
    return (
      `PostgreSQL at ${where} answered, but ${causeOf(error)}; ` +
      `create it${command === undefined ? '' : ` (${command})`} or name another database in the database URL`
    );
  }
  if (code === '28P01' || code === '28000')
    return (
      `PostgreSQL at ${where} refused the login: ${causeOf(error)}; ` +
      'check the user and password in the database URL (and pg_hba.conf on the server)'
    );
  return `cannot reach PostgreSQL at ${where}: ${causeOf(error)}`;
}

/** The createdb command line that makes the database a URL names (never with its password); undefined if none is named. */
function createdbCommand(databaseUrl: string): string | undefined {
  try {
    const url = new URL(databaseUrl);
    const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
    if (database === '') return undefined;
    const quote = (word: string): string => (/^[\w.@:-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`);
    const parts = ['createdb'];
    if (url.hostname !== '') parts.push('-h', quote(url.hostname.replace(/^\[|\]$/g, '')));
    if (url.port !== '') parts.push('-p', url.port);
    if (url.username !== '') parts.push('-U', quote(decodeURIComponent(url.username)));
    parts.push(quote(database));
    return parts.join(' ');
  } catch {
    return undefined;
  }
}

/** Opens a pool on the database, checked by a first connection, and brings the schema up to date. */
export async function openPool(
  databaseUrl: string,
  poolSize: number,
): Promise<{ pool: pg.Pool; cursorSecret: Buffer }> {
  const pool = new pg.Pool({ ...connectionConfig(databaseUrl), max: poolSize, allowExitOnIdle: true });
  // An idle connection that breaks (the server restarted) is dropped by the pool; the next query opens
  // a new one. Without a listener, the error would end the process.
  pool.on('error', () => {});
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    await pool.end().catch(() => {});
    throw new Error(connectFailure(error, databaseUrl));
  }
  try {
    await migrate(client);
    const { rows } = await client.query<{ value: string }>("SELECT value FROM settings WHERE name = 'cursor_secret'");
    const cursorSecret = Buffer.from(rows[0]?.value ?? '', 'hex');
    if (cursorSecret.length < 16)
      throw new Error('the cursor secret in the settings table is damaged (expected 32 hex digits or more)');
    client.release();
    return { pool, cursorSecret };
  } catch (error) {
    client.release();
    await pool.end().catch(() => {});
    throw new Error(`PostgreSQL at ${describeDatabase(databaseUrl)}: ${causeOf(error)}`);
  }
}

/** Opens the PostgreSQL store of `options.databaseUrl`. */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const { databaseUrl, clock, warn } = options;
  const { pool, cursorSecret } = await openPool(databaseUrl, options.poolSize);
  const where = describeDatabase(databaseUrl);
  const sweep = (): void => {
    sweepExpired(pool, clock.now()).catch(() => {}); // The next sweep tries again.
  };
  await sweepExpired(pool, clock.now()).catch(() => {});
  const sweeper = setInterval(sweep, SWEEP_INTERVAL_MS);
  sweeper.unref();
  const database = new Database(pool, (available, cause) =>
    warn(
      available
        ? `PostgreSQL at ${where} answers again`
        : `PostgreSQL at ${where} cannot be reached (${cause}); API requests get 503 until it answers again`,
    ),
  );
  // Listening from the start, so that a worker's watch is in force as soon as it is made.
  const channel = new DeliveryChannel(connectionConfig(databaseUrl), pool);
  await channel.listen();
  const webhooks = new PostgresWebhookStore({ database, channel, cursorSecret, clock });
  return new PostgresStore({
    database,
    cursorSecret,
    keys: new PostgresKeyTable(pool, connectionConfig(databaseUrl)),
    idempotency: new PostgresIdempotencyTable(pool),
    webhooks,
    onClose: async () => {
      clearInterval(sweeper);
      webhooks.close();
    },
  });
}
