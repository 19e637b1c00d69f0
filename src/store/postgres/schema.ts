// The schema of the PostgreSQL store, as numbered migrations applied in order on start. Every start
// runs `migrate`: it takes a transaction-scoped advisory lock, so instances starting at once apply each
// migration exactly once (the others wait, then find it applied), and it records each version in
// `schema_migrations` in the same transaction as the change itself (PostgreSQL's DDL is transactional),
// so a start killed half-way leaves the schema as it was.
import { randomBytes } from 'node:crypto';
import type { ClientBase } from 'pg';
import { type DeliveredEventType, EVENT_TYPES, TEST_EVENT_TYPE } from '../../events/event.js';
import { ORDER_STATUSES } from '../../orders/schemas.js';
import { PET_STATUSES } from '../../pets/schemas.js';

/** Rows of the counts table: each write updates one, picked at random, so writers rarely wait for each other. */
export const COUNT_SLOTS = 16;

/** The counts table's column of each pet status and order status. */
export const petCountColumn = (status: string): string => `pets_${status}`;
export const orderCountColumn = (status: string): string => `orders_${status}`;
/** The counts table's column of each event type (migration 2): how many events of it were recorded and not purged. */
export const eventCountColumn = (type: DeliveredEventType): string => `events_${type.replace('.', '_')}`;
/** Every type an event may have, test events' included: each has its count. */
export const COUNTED_EVENT_TYPES: readonly DeliveredEventType[] = [...EVENT_TYPES, TEST_EVENT_TYPE];

/** The channel `NOTIFY` announces key changes on; see PostgresKeyTable. */
export const KEYS_CHANNEL = 'animal_store_keys';
/** The channel `NOTIFY` announces new deliveries, and subscriptions disabled or deleted, on; see DeliveryChannel. */
export const DELIVERIES_CHANNEL = 'animal_store_deliveries';

/**
 * The key of the advisory lock that serialises migrations: any fixed 64-bit number; this one spells
 * "animal" in ASCII, so that it is recognisable in pg_locks.
 */
export const MIGRATION_LOCK = '107014665707884';

const countColumns = [...PET_STATUSES.map(petCountColumn), ...ORDER_STATUSES.map(orderCountColumn)];

/** Each migration's statements; its version is its position plus one. Never edit one that shipped: add another. */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE pets (
    id          bigint PRIMARY KEY,
    name        text   NOT NULL,
    category_id bigint NOT NULL,
    status      text   NOT NULL,
    -- The pet's JSON as the API sends it, made once when it is written.
    json        text   NOT NULL
  );
  CREATE INDEX pets_by_status ON pets (status, id);
  CREATE SEQUENCE pet_ids AS bigint;

  CREATE TABLE orders (
    id         bigint PRIMARY KEY,
    pet_id     bigint NOT NULL REFERENCES pets (id),
    status     text   NOT NULL,
    created_at text   NOT NULL,
    json       text   NOT NULL
  );
  CREATE INDEX orders_by_status ON orders (status, id);
  CREATE SEQUENCE order_ids AS bigint;

  -- How many pets and orders are in each status, kept by every write in its own transaction, so that a
  -- listing's total is a sum over ${COUNT_SLOTS} rows, never a count(*) over the table. Every write
  -- updates a row here, so the table is kept small on purpose: pages mostly empty (fillfactor), so an
  -- update finds room in its own page and the old version is pruned there (a HOT update), and vacuumed
  -- after every few hundred updates rather than after a fifth of the table changed.
  CREATE TABLE counts (
    slot smallint PRIMARY KEY,
    ${countColumns.map((column) => `${column} bigint NOT NULL DEFAULT 0`).join(',\n    ')}
  ) WITH (fillfactor = 10, autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 500);
  INSERT INTO counts (slot) SELECT generate_series(0, ${COUNT_SLOTS - 1});

  -- Answers remembered under an Idempotency-Key, with what they created.
  CREATE TABLE idempotency_answers (
    scope       text   NOT NULL,
    key         text   NOT NULL,
    fingerprint text   NOT NULL,
    status      int    NOT NULL,
    body        text   NOT NULL,
    expires_at  bigint NOT NULL,
    PRIMARY KEY (scope, key)
  );
  CREATE INDEX idempotency_answers_by_expiry ON idempotency_answers (expires_at);

  -- Requests with an Idempotency-Key now in flight on some instance.
  CREATE TABLE idempotency_claims (
    scope     text   NOT NULL,
    key       text   NOT NULL,
    claimant  text   NOT NULL,
    until_ms  bigint NOT NULL,
    PRIMARY KEY (scope, key)
  );

  -- API keys: hashes only, never keys.
  CREATE TABLE api_keys (
    position   bigserial,
    id         text   PRIMARY KEY,
    name       text   NOT NULL,
    plan       text   NOT NULL,
    per_minute bigint NOT NULL,
    per_day    bigint NOT NULL,
    hash       text   NOT NULL UNIQUE,
    created_at text   NOT NULL,
    revoked_at text
  );
  CREATE FUNCTION notify_api_keys() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM pg_notify('${KEYS_CHANNEL}', '');
    RETURN NULL;
  END $$;
  -- Any change to the keys, by this service or by hand in psql, is announced to every instance.
  CREATE TRIGGER api_keys_changed AFTER INSERT OR UPDATE OR DELETE ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION notify_api_keys();

  -- Settings every instance shares: the secret that signs paging cursors.
  CREATE TABLE settings (
    name  text PRIMARY KEY,
    value text NOT NULL
  );
  `,
  `
  -- A pet's name is any text a client sends, U+0000 included, which a text column cannot hold; it
  -- lives in the pet's JSON only (where JSON escapes it). The column stays, unfilled, for tools of the
  -- first release that still write it.
  ALTER TABLE pets ALTER COLUMN name DROP NOT NULL;

  -- Events, written by the change they describe in the same statement (the transactional outbox). A
  -- sequence hands out positions, but transactions commit in another order than they took them; so
  -- /events lists in the order of (xid, seq), the writing transaction's id first, and only rows whose
  -- transaction is older than every transaction still running: none can then appear before them.
  -- The id is derived from seq (see src/events/event-id.ts), so it needs no column or index of its own.
  CREATE SEQUENCE event_seqs AS bigint;
  CREATE TABLE events (
    seq      bigint PRIMARY KEY,
    type     text   NOT NULL,
    at_ms    bigint NOT NULL,
    -- {"id","type","timestamp","data"} as delivered, made once when the event is recorded.
    json     text   NOT NULL,
    xid      xid8   NOT NULL DEFAULT pg_current_xact_id(),
    -- The subscription a webhook.test event is for: never listed, never read by id, never fanned out.
    test_for text
  );
  CREATE INDEX events_in_order ON events (xid, seq) WHERE test_for IS NULL;
  CREATE INDEX events_by_type ON events (type, xid, seq) WHERE test_for IS NULL;
  CREATE INDEX events_by_time ON events (at_ms, type);
  -- How many events of each type were recorded and not purged, kept like the pets' and orders' counts by
  -- the change that records them (test events too, in a column of their own). A listing's total is
  -- then a sum less the few not yet listable or past retention: never a count over the table. Whatever
  -- writes or deletes events (a copy from another store included) keeps these in step.
  ALTER TABLE counts
    ${COUNTED_EVENT_TYPES.map((type) => `ADD COLUMN ${eventCountColumn(type)} bigint NOT NULL DEFAULT 0`).join(',\n    ')};

  -- Subscriptions. What a client wrote (url, description) and the secrets are kept inside JSON text;
  -- the columns beside it are the service's own values that statements select on.
  CREATE TABLE webhooks (
    seq              bigserial PRIMARY KEY,
    id               text   NOT NULL UNIQUE,
    owner_key_id     text   NOT NULL,
    status           text   NOT NULL,
    disabled_reason  text,
    events           text[] NOT NULL,
    failing_since_ms bigint,
    -- {"url","description","createdAt","secrets"}
    json             text   NOT NULL
  );
  CREATE INDEX webhooks_by_owner ON webhooks (owner_key_id, seq);

  -- Pending deliveries: a queue in a table, claimed with FOR UPDATE SKIP LOCKED. A claim is a lease:
  -- the delivery falls due again when its lease ends, so one whose instance died is not lost. No
  -- foreign keys: their row locks on every webhook a change fans out to would serialise the writers.
  CREATE SEQUENCE delivery_ids AS bigint;
  CREATE TABLE deliveries (
    id                 bigint PRIMARY KEY DEFAULT nextval('delivery_ids'),
    event_seq          bigint NOT NULL,
    webhook_id         text   NOT NULL,
    attempts_made      int    NOT NULL DEFAULT 0,
    next_attempt_at_ms bigint NOT NULL,
    lease_until_ms     bigint NOT NULL DEFAULT 0
  );
  CREATE INDEX deliveries_due ON deliveries ((greatest(next_attempt_at_ms, lease_until_ms)));
  CREATE INDEX deliveries_due_by_webhook ON deliveries (webhook_id, (greatest(next_attempt_at_ms, lease_until_ms)));
  CREATE INDEX deliveries_by_event ON deliveries (event_seq, webhook_id);

  -- Attempts, newest first per subscription.
  CREATE TABLE attempts (
    seq        bigserial PRIMARY KEY,
    id         text    NOT NULL,
    webhook_id text    NOT NULL,
    event_seq  bigint  NOT NULL,
    at_ms      bigint  NOT NULL,
    delivered  boolean NOT NULL,
    -- {"id","eventId","type","attemptedAt","status","error","durationMs","nextAttemptAt","response"}
    json       text    NOT NULL
  );
  CREATE INDEX attempts_by_webhook ON attempts (webhook_id, seq);
  CREATE INDEX attempts_delivered ON attempts (webhook_id, event_seq) WHERE delivered;
  CREATE INDEX attempts_by_time ON attempts (at_ms);

  `,
  `
  -- The queue of deliveries as a queue on PostgreSQL wants it. Thousands of rows a second are
  -- inserted, leased and deleted, so:
  -- - the lease is in no index: a claim, which sets only the lease, is then a HOT update (the new
  --   version in the row's own page, no index entry added), where it was an update of every index;
  -- - pages are filled to half, so that the page has room for that new version;
  -- - dead rows are vacuumed after a few thousand rather than a fifth of the table (also by the
  --   service itself, for servers without autovacuum: see PostgresDeliveryQueue).
  DROP INDEX deliveries_due;
  DROP INDEX deliveries_due_by_webhook;
  CREATE INDEX deliveries_due ON deliveries (next_attempt_at_ms);
  CREATE INDEX deliveries_due_by_webhook ON deliveries (webhook_id, next_attempt_at_ms);
  ALTER TABLE deliveries SET (fillfactor = 50, autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 5000);
  `,
];

/** The schema version this code works with. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** Brings the schema to SCHEMA_VERSION; refuses a database a newer release has migrated. */
export async function migrate(client: ClientBase): Promise<{ applied: number[] }> {
  const applied: number[] = [];
  await client.query('BEGIN');
  try {
    // The connection's statement timeout bounds a request's wait on the database. A migration is not a
    // request: it may rebuild an index of a large table, or wait for another instance's migration, and
    // cancelling it half-way would stop the start-up it belongs to. It runs as long as it needs.
    await client.query('SET LOCAL statement_timeout = 0');
    await client.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version int PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const { rows } = await client.query<{ version: number | null }>(
      'SELECT max(version) AS version FROM schema_migrations',
    );
    const current = rows[0]?.version ?? 0;
    if (current > SCHEMA_VERSION) {
      throw new Error(
        `the database's schema is at version ${current}, newer than this release knows (${SCHEMA_VERSION}); run a newer animal-store`,
      );
    }
    for (let version = current + 1; version <= SCHEMA_VERSION; version++) {
      await client.query(MIGRATIONS[version - 1] as string);
      await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version]);
      applied.push(version);
    }
    // The cursor secret is made by the first instance and read by every other.
    await client.query(
      "INSERT INTO settings (name, value) VALUES ('cursor_secret', $1) ON CONFLICT (name) DO NOTHING",
      [randomBytes(32).toString('hex')],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
  return { applied };
}
