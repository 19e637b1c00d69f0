// PostgreSQL for the tests of events and webhooks. /events lists an event once every transaction older
// than it has ended, and transaction ids are the whole server's, so on a server that other tests share
// an event may be listed a moment after its commit. These tests run on a server of their own when its
// programs are installed (nothing else runs there), and otherwise on a database of the shared test
// server, waiting where they read events until every transaction that began before has ended.
import pg from 'pg';
import { createTestDatabase, postgresSkipReason } from './postgres.js';
import { privatePostgresSkipReason, startPrivatePostgres } from './private-postgres.js';

/** A server for one test file: a fresh database on it, and how to make more of them. */
export interface EventsServer {
  /** Whether the server is this process's own. */
  readonly private: boolean;
  /** A new, empty database. */
  database(): Promise<string>;
  close(): Promise<void>;
}

/** Why these tests cannot run here (a skip reason), or undefined; throws when the services are required. */
export async function eventsServerSkipReason(): Promise<string | undefined> {
  if (privatePostgresSkipReason() === undefined) return undefined;
  return postgresSkipReason();
}

/** A private server if one can be made here, else the shared test server. */
export async function openEventsServer(): Promise<EventsServer> {
  if (privatePostgresSkipReason() === undefined) {
    const server = await startPrivatePostgres();
    let made = 0;
    return {
      private: true,
      async database() {
        const name = `events_${++made}`;
        const admin = new pg.Client({ connectionString: server.url });
        await admin.connect();
        try {
          await admin.query(`CREATE DATABASE ${name}`);
        } finally {
          await admin.end();
        }
        const url = new URL(server.url);
        url.pathname = `/${name}`;
        return url.toString();
      },
      close: () => server.remove(),
    };
  }
  const databases: Array<() => Promise<void>> = [];
  return {
    private: false,
    async database() {
      const database = await createTestDatabase();
      databases.push(database.drop);
      return database.url;
    },
    async close() {
      for (const drop of databases) await drop();
    },
  };
}

/**
 * Resolves once every event of the database at `url` can be listed: no transaction that began before
 * the last one is still running. At once on a private server; on a shared one it waits for the other
 * tests' transactions of the moment.
 */
export async function untilListable(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (;;) {
      const { rows } = await client.query<{ listable: boolean }>(
        `SELECT coalesce((SELECT max(xid) FROM events) < pg_snapshot_xmin(pg_current_snapshot()), true) AS listable`,
      );
      if (rows[0]?.listable === true) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    await client.end();
  }
}
