// The statements of the PostgreSQL webhook store (its rows and values: webhook-rows.ts; the recording of
// attempts' outcomes: attempt-statements.ts).
import type { QueryConfig } from 'pg';
import { EVENT_TYPES } from '../../events/event.js';
import { ATTEMPTS_KEPT, endSchedules, newestAttempts, WAITING } from './attempt-statements.js';
import { COUNTED_EVENT_TYPES, eventCountColumn } from './schema.js';

/** The position of a subscription's ($1) oldest attempt kept: the listing starts there. */
const OLDEST_KEPT = `coalesce((SELECT seq FROM attempts WHERE webhook_id = $1 ORDER BY seq DESC OFFSET ${ATTEMPTS_KEPT - 1} LIMIT 1), 0)`;
/** The largest bigint. */
const LARGEST_BIGINT = '9223372036854775807';
/** Rows a purge deletes per statement, so that no statement holds many locks or runs long. */
export const PURGE_BATCH = 10_000;

const SUBSCRIPTION_COLUMNS = 'seq, id, owner_key_id, status, disabled_reason, events, failing_since_ms, json';

/** The CTE that keeps a remembered answer from parameter `first` on, once per row of `from` (if given). */
const rememberClause = (first: number, from?: string): string => `
  remembered AS (
    INSERT INTO idempotency_answers (scope, key, fingerprint, status, body, expires_at)
    SELECT $${first}, $${first + 1}, $${first + 2}, $${first + 3}, $${first + 4}, $${first + 5}
      ${from === undefined ? '' : `FROM ${from}`} WHERE $${first}::text IS NOT NULL
    ON CONFLICT (scope, key) DO UPDATE
      SET fingerprint = excluded.fingerprint, status = excluded.status, body = excluded.body, expires_at = excluded.expires_at
  )`;

/**
 * A delivery is due when its next attempt's time has come and no worker's lease on it is running. The
 * lease is in no index (schema.ts, migration 3), so that a claim, which sets only the lease, is a HOT
 * update: the row's new version is written in its own page, and no index gains an entry.
 */
const IS_DUE = 'd.next_attempt_at_ms <= $1 AND d.lease_until_ms <= $1';

export const SQL = {
  getSubscription: `SELECT ${SUBSCRIPTION_COLUMNS} FROM webhooks WHERE id = $1`,
  /** Locked against every change (a delete). */
  lockSubscription: `SELECT ${SUBSCRIPTION_COLUMNS} FROM webhooks WHERE id = $1 FOR UPDATE`,
  /** Locked against other changes of it, but not against the key locks of rows that refer to it. */
  lockSubscriptionForChange: `SELECT ${SUBSCRIPTION_COLUMNS} FROM webhooks WHERE id = $1 FOR NO KEY UPDATE`,
  /** Kept as it is (enabled, with its events) until the transaction ends: a disable waits for it. */
  lockSubscriptionAsIs: `SELECT ${SUBSCRIPTION_COLUMNS} FROM webhooks WHERE id = $1 FOR SHARE`,

  /** Serialises the additions of one owner (two 32-bit keys: a space apart from the 64-bit ones). */
  lockOwner: `SELECT pg_advisory_xact_lock(1752457573, hashtext($1))`,
  addSubscription: `
    WITH added AS (
      INSERT INTO webhooks (id, owner_key_id, status, disabled_reason, events, failing_since_ms, json)
      SELECT $1, $2, $3, $4, $5, $6, $7 WHERE (SELECT count(*) FROM webhooks WHERE owner_key_id = $2) < $8
      RETURNING seq
    ),
    ${rememberClause(9, 'added')}
    SELECT seq FROM added`,
  pageSubscriptions: `
    SELECT t.total, w.* FROM (SELECT count(*) AS total FROM webhooks WHERE owner_key_id = $1) AS t
      LEFT JOIN LATERAL (
        SELECT ${SUBSCRIPTION_COLUMNS} FROM webhooks WHERE owner_key_id = $1 AND seq > $2 ORDER BY seq LIMIT $3
      ) AS w ON true
     ORDER BY w.seq`,
  /**
   * $8: drop its pending deliveries (disabled: none may be sent; enabled again: none recorded meanwhile
   * may be); $15 the time.
   */
  updateSubscription: `
    WITH changed AS (
      UPDATE webhooks SET owner_key_id = $2, status = $3, disabled_reason = $4, events = $5, failing_since_ms = $6, json = $7
       WHERE id = $1 RETURNING seq
    ),
    dropped AS (
      DELETE FROM deliveries WHERE webhook_id = $1 AND $8::boolean
      RETURNING event_seq, lease_until_ms, next_attempt_at_ms
    ),
    ${rememberClause(9, 'changed')}
    SELECT seq, (SELECT array_agg(d.event_seq) FROM dropped AS d WHERE ${WAITING('d', '$15')}) AS waiting FROM changed`,
  /**
   * After a disable dropped the deliveries of subscription $1 to events $2 that were waiting: their
   * newest attempts announce no next one. A statement of its own, after the one that deleted them: an
   * attempt whose outcome held a delivery's row then committed before the delete went on, and only a
   * statement begun after it sees that attempt.
   */
  endSchedules: endSchedules(newestAttempts('$1', 'SELECT unnest($2::bigint[])')),
  deleteSubscription: `
    WITH gone AS (DELETE FROM webhooks WHERE id = $1),
    dropped AS (DELETE FROM deliveries WHERE webhook_id = $1),
    forgotten AS (DELETE FROM attempts WHERE webhook_id = $1)
    SELECT 1`,

  getEvent: 'SELECT seq, type, at_ms, json FROM events WHERE seq = $1 AND test_for IS NULL AND at_ms >= $2',
  takeEventSeq: "SELECT nextval('event_seqs') AS seq",
  sendTest: `
    WITH recorded AS (INSERT INTO events (seq, type, at_ms, json, test_for) VALUES ($1, 'webhook.test', $2, $3, $4)),
    queued AS (INSERT INTO deliveries (event_seq, webhook_id, next_attempt_at_ms) VALUES ($1, $4, $2)),
    counted AS (UPDATE counts SET ${eventCountColumn('webhook.test')} = ${eventCountColumn('webhook.test')} + 1 WHERE slot = 0),
    ${rememberClause(5)}
    SELECT 1`,
  /** A pending delivery of the event to a subscription named is replaced by the new one, as in the embedded store. */
  redeliver: `
    WITH replaced AS (DELETE FROM deliveries WHERE event_seq = $1 AND webhook_id = ANY ($2::text[])),
    queued AS (
      INSERT INTO deliveries (event_seq, webhook_id, next_attempt_at_ms)
      SELECT e.seq, w.id, $3 FROM events AS e JOIN webhooks AS w ON w.id = ANY ($2::text[]) WHERE e.seq = $1
    ),
    ${rememberClause(4)}
    SELECT 1`,
  /** Pending deliveries of the events chosen are replaced by new ones, due now, as a redelivery replaces them. */
  recover: `
    WITH chosen AS (
      SELECT e.seq FROM events AS e
       WHERE e.test_for IS NULL AND e.at_ms >= $2 AND e.type = ANY ($3::text[])
         AND NOT EXISTS (SELECT 1 FROM attempts AS a WHERE a.webhook_id = $1 AND a.event_seq = e.seq AND a.delivered)
    ),
    replaced AS (DELETE FROM deliveries AS d USING chosen WHERE d.webhook_id = $1 AND d.event_seq = chosen.seq),
    queued AS (
      INSERT INTO deliveries (event_seq, webhook_id, next_attempt_at_ms) SELECT seq, $1, $4 FROM chosen RETURNING 1
    )
    SELECT count(*) AS count FROM queued`,
  remember: `WITH ${rememberClause(1)} SELECT 1`,
  /**
   * Only the ATTEMPTS_KEPT recorded last: those before them may not have been deleted yet (TRIM_EVERY).
   * Newest first by time, then seq (AttemptPosition), after ($2 time, $3 seq); a $2 of null (a
   * position of an earlier release, a seq alone) takes the time of attempt $3, and ends the listing
   * when that attempt is gone. At most ATTEMPTS_KEPT rows, found by (webhook_id, seq), are sorted.
   */
  pageAttempts: `
    WITH kept AS (SELECT ${OLDEST_KEPT} AS seq),
    after AS (SELECT coalesce($2::bigint, (SELECT at_ms FROM attempts WHERE seq = $3 AND webhook_id = $1), -1) AS at_ms)
    SELECT t.total, a.seq, a.at_ms, a.id, a.json
      FROM (SELECT count(*) AS total FROM attempts, kept WHERE webhook_id = $1 AND attempts.seq >= kept.seq) AS t
      LEFT JOIN LATERAL (
        SELECT x.seq, x.at_ms, x.id, x.json FROM attempts AS x, kept, after
         WHERE x.webhook_id = $1 AND x.seq >= kept.seq AND (x.at_ms, x.seq) < (after.at_ms, $3::bigint)
         -- at_ms + 0: not the index on at_ms alone, which the planner would scan backwards past every
         -- other subscription's attempts, but this one's kept attempts by (webhook_id, seq), sorted.
         ORDER BY x.at_ms + 0 DESC, x.seq DESC LIMIT $4
      ) AS a ON true
     ORDER BY a.at_ms DESC, a.seq DESC`,

  /**
   * Takes due deliveries as graphile-worker and pg-boss take jobs: rows locked FOR UPDATE SKIP LOCKED
   * (another instance's claim in progress is passed over, not waited for) and marked taken in the same
   * statement. Each enabled subscription gets its own share ($4 less what this worker holds: $5/$6;
   * $7 instead of $4 while its receiver is failing), so one subscription's backlog never holds up the
   * others'; the subscriptions held fewest come first, then the earliest due, up to $2 (by the time of
   * their next attempt: a delivery whose lease ran out is among the first). The scan of
   * a subscription's index range passes over the deliveries leased now, as many as are in flight.
   */
  claimDue: `
    WITH held AS (SELECT * FROM unnest($5::text[], $6::int[]) AS h (webhook_id, n)),
    chosen AS (
      SELECT c.id FROM webhooks AS w
        LEFT JOIN held AS h ON h.webhook_id = w.id
        CROSS JOIN LATERAL (
          SELECT d.id, d.next_attempt_at_ms AS due_ms FROM deliveries AS d
           WHERE d.webhook_id = w.id AND ${IS_DUE}
           ORDER BY d.next_attempt_at_ms
           LIMIT greatest(CASE WHEN w.failing_since_ms IS NULL THEN $4::int ELSE $7::int END - coalesce(h.n, 0), 0)
           FOR UPDATE SKIP LOCKED
        ) AS c
       WHERE w.status = 'enabled'
       -- The subscriptions this instance holds fewest of first: a slot that frees up goes to a receiver
       -- not holding many already, so one that hangs keeps only its own.
       ORDER BY coalesce(h.n, 0), c.due_ms LIMIT $2
    )
    UPDATE deliveries AS d SET lease_until_ms = $1 + $3
      FROM chosen, events AS e, webhooks AS w
     WHERE d.id = chosen.id AND e.seq = d.event_seq AND w.id = d.webhook_id
    RETURNING d.id, d.attempts_made, e.seq, e.type, e.at_ms, e.json,
              w.id AS webhook_id, w.owner_key_id, w.failing_since_ms, w.json AS webhook_json`,
  /**
   * The earliest time a delivery of an enabled subscription falls due: the next attempt's time of the
   * first one held by no lease (in the order of those times), or, sooner, the end of the lease of one
   * before it. The leased ones come first in that order (a lease is taken on a delivery that is due),
   * so both are short index ranges: as long as the deliveries in flight.
   */
  nextDue: `
    WITH free AS (
      SELECT d.next_attempt_at_ms AS due_ms FROM deliveries AS d JOIN webhooks AS w ON w.id = d.webhook_id
       WHERE w.status = 'enabled' AND d.lease_until_ms <= d.next_attempt_at_ms
       ORDER BY d.next_attempt_at_ms LIMIT 1
    )
    SELECT least(
      (SELECT due_ms FROM free),
      (SELECT min(d.lease_until_ms) FROM deliveries AS d JOIN webhooks AS w ON w.id = d.webhook_id
        WHERE w.status = 'enabled' AND d.lease_until_ms > d.next_attempt_at_ms
          AND d.next_attempt_at_ms < coalesce((SELECT due_ms FROM free), ${LARGEST_BIGINT}))
    ) AS due_ms`,
  /**
   * Takes the space of ended deliveries back and their entries out of the indexes, and tells the
   * planner how large the queue is now (see PostgresDeliveryQueue); with ANALYZE, which takes four
   * times as long, also what it holds.
   */
  vacuumDeliveries: 'VACUUM (SKIP_LOCKED) deliveries',
  vacuumAnalyzeDeliveries: 'VACUUM (SKIP_LOCKED, ANALYZE) deliveries',
  vacuumAttempts: 'VACUUM (SKIP_LOCKED) attempts',
  dropDelivery: 'DELETE FROM deliveries WHERE id = $1',

  /** A batch of events past retention, with their pending deliveries, and out of the counts. */
  purgeEvents: `
    WITH gone AS (
      DELETE FROM events WHERE seq IN (SELECT seq FROM events WHERE at_ms < $1 LIMIT ${PURGE_BATCH})
      RETURNING seq, type, test_for
    ),
    dropped AS (DELETE FROM deliveries WHERE event_seq IN (SELECT seq FROM gone)),
    uncounted AS (
      UPDATE counts SET ${COUNTED_EVENT_TYPES.map(
        (type) =>
          `${eventCountColumn(type)} = ${eventCountColumn(type)} - (SELECT count(*) FROM gone WHERE type = '${type}')`,
      ).join(',\n        ')}
       WHERE slot = 0
    )
    SELECT count(*) AS count FROM gone`,
  purgeAttempts: `
    WITH gone AS (
      DELETE FROM attempts WHERE seq IN (SELECT seq FROM attempts WHERE at_ms < $1 LIMIT ${PURGE_BATCH}) RETURNING 1
    )
    SELECT count(*) AS count FROM gone`,
  /** Rows a change made concurrently with the deletion of their subscription, which nothing else would reach. */
  purgeOrphans: `
    WITH dropped AS (DELETE FROM deliveries AS d WHERE NOT EXISTS (SELECT 1 FROM webhooks AS w WHERE w.id = d.webhook_id))
    DELETE FROM attempts AS a WHERE NOT EXISTS (SELECT 1 FROM webhooks AS w WHERE w.id = a.webhook_id)`,
  stats: `
    SELECT (SELECT count(*) FROM deliveries AS d JOIN webhooks AS w ON w.id = d.webhook_id AND w.status = 'enabled') AS pending,
           (SELECT min(e.at_ms) FROM deliveries AS d JOIN webhooks AS w ON w.id = d.webhook_id AND w.status = 'enabled'
              JOIN events AS e ON e.seq = d.event_seq) AS oldest_ms,
           (SELECT count(*) FROM webhooks WHERE status = 'disabled') AS disabled,
           (SELECT sum(${COUNTED_EVENT_TYPES.map(eventCountColumn).join(' + ')})::bigint FROM counts) AS events`,
};

/**
 * The listing of events after a position ($1 xid or null, $2 seq), of all types or of `$5`, recorded
 * at or after $3, up to $4 rows; see PostgresWebhookStore.pageEvents. The total is the events counted
 * by their changes (schema.ts, migration 2) less those past retention not purged yet and those not
 * listable yet: two short index ranges, whatever the number of events.
 */
export function pageEventsStatement(byType: boolean): string {
  const type = byType ? 'AND type = $5' : '';
  const counted = byType
    ? `CASE $5::text ${EVENT_TYPES.map((name) => `WHEN '${name}' THEN ${eventCountColumn(name)}`).join(' ')} END`
    : EVENT_TYPES.map(eventCountColumn).join(' + ');
  return `
    WITH horizon AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin),
    -- A bare position (a cursor of the embedded store this one was copied from) is read with the
    -- transaction of its event, or of the next one when it was purged.
    after AS (
      SELECT coalesce($1::xid8, (SELECT xid FROM events WHERE seq >= $2 ORDER BY seq LIMIT 1), '0'::xid8) AS xid,
             $2::bigint AS seq
    ),
    total AS (
      SELECT (SELECT sum(${counted}) FROM counts)
           - (SELECT count(*) FROM events WHERE at_ms < $3 AND type <> 'webhook.test' ${type})
           - (SELECT count(*) FROM events, horizon
               WHERE test_for IS NULL AND xid >= horizon.xmin AND at_ms >= $3 ${type}) AS total
    )
    SELECT t.total, e.xid::text AS xid, e.seq, e.type, e.at_ms, e.json
      FROM total AS t
      LEFT JOIN LATERAL (
        SELECT ev.xid, ev.seq, ev.type, ev.at_ms, ev.json FROM events AS ev, horizon, after
         WHERE ev.test_for IS NULL AND (ev.xid, ev.seq) > (after.xid, after.seq) AND ev.xid < horizon.xmin
           AND ev.at_ms >= $3 ${type.replace('type', 'ev.type')}
         ORDER BY ev.xid, ev.seq LIMIT $4
      ) AS e ON true
     ORDER BY e.xid, e.seq`;
}

/** A statement named so the server prepares it once per connection. */
export const named = (name: string, text: string, values: unknown[]): QueryConfig => ({
  name: `animal_store_wh_${name}`,
  text,
  values,
});

/** A statement of SQL, named. */
export const statement = (key: keyof typeof SQL, values: unknown[]): QueryConfig => named(key, SQL[key], values);
