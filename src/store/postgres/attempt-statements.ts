// The statements that record what came of delivery attempts on PostgreSQL (delivery-queue.ts runs
// them): an attempt with its delivery moved on, ended or its subscription disabled, one by one or many
// in one statement; how many attempts a subscription keeps; and the SQL pieces that make a listing
// announce no next attempt once it will not be made, which a disable (webhook-statements.ts) uses too.

/** Attempts kept per subscription: the listing shows the newest, and older ones are deleted. */
export const ATTEMPTS_KEPT = 1000;
/**
 * Attempts an instance records for a subscription between two deletions of its attempts past
 * ATTEMPTS_KEPT. A deletion reads the subscription's newest thousand index entries; made at every
 * attempt, it cost more than the rest of the attempt's record together.
 */
export const TRIM_EVERY = 100;

/**
 * An attempt's JSON `json` (an SQL expression) with no next attempt: a listing never announces a retry
 * that will not be made. `"nextAttemptAt":"` cannot occur inside a string of that JSON, whose quotes
 * are escaped there, so the first match is the member itself.
 */
const withoutNextAttempt = (json: string): string =>
  `regexp_replace(${json}, '"nextAttemptAt":"[^"]*"', '"nextAttemptAt":null')`;

/**
 * Whether a delivery row `d` that a disable drops at time `now` (an SQL expression, ms) is waiting for
 * its next attempt, not being attempted now (a worker's lease taken once it fell due, and not run out):
 * only a waiting one's announced attempt will not be made. The attempt under way is recorded with no
 * next attempt when it ends (finishAttemptStatement); one whose lease ran out was its instance's last
 * act (it stopped or was killed), and nobody will record it.
 */
export const WAITING = (d: string, now: string): string =>
  `(${d}.lease_until_ms <= ${d}.next_attempt_at_ms OR ${d}.lease_until_ms <= ${now})`;

/**
 * The seqs of the newest attempt (by time, as the listing orders them) of each event that the query
 * `events` selects and subscription `webhook` was sent.
 */
export const newestAttempts = (webhook: string, events: string): string => `
  SELECT DISTINCT ON (event_seq) seq FROM attempts
   WHERE webhook_id = ${webhook} AND event_seq IN (${events})
   ORDER BY event_seq, at_ms DESC, seq DESC`;

/** Shows no next attempt on the attempts whose seqs `seqs` (an SQL query) selects. */
export const endSchedules = (seqs: string): string => `
  UPDATE attempts SET json = ${withoutNextAttempt('json')}
   WHERE seq IN (${seqs}) AND strpos(json, '"nextAttemptAt":"') > 0`;

/**
 * Records an attempt and what follows it, in one statement: the delivery is moved to its next attempt
 * (`retry`), ended (`end`), or the subscription is disabled with every pending delivery of it
 * (`disable`, which answers `waiting`: the event positions of the dropped deliveries that waited for
 * a retry). $1 delivery, $2 subscription, $3 failing since, $4 attempt id, $5 its event's position,
 * $6 its time, $7 delivered, $8 its JSON, $9 the next attempt's time or the reason for disabling,
 * then whether to delete the subscription's attempts past ATTEMPTS_KEPT, and for `disable` the time.
 * The subscription's row is written only when something in it changes, so a stream of successful
 * attempts does not queue on it.
 */
export function finishAttemptStatement(kind: 'retry' | 'end' | 'disable'): string {
  const trim = kind === 'end' ? '$9' : '$10';
  const hook =
    kind === 'disable'
      ? `UPDATE webhooks SET failing_since_ms = $3, status = 'disabled',
                disabled_reason = CASE WHEN status = 'enabled' THEN $9 ELSE disabled_reason END WHERE id = $2`
      : 'UPDATE webhooks SET failing_since_ms = $3 WHERE id = $2 AND failing_since_ms IS DISTINCT FROM $3';
  const delivery = {
    retry:
      'UPDATE deliveries SET attempts_made = attempts_made + 1, next_attempt_at_ms = $9, lease_until_ms = 0 WHERE id = $1 RETURNING id',
    end: 'DELETE FROM deliveries WHERE id = $1 RETURNING id',
    disable: 'DELETE FROM deliveries WHERE webhook_id = $2 RETURNING id, event_seq, lease_until_ms, next_attempt_at_ms',
  }[kind];
  return `
    WITH hook AS (${hook}),
    delivery AS (${delivery}),
    recorded AS (
      INSERT INTO attempts (id, webhook_id, event_seq, at_ms, delivered, json)
      SELECT $4, w.id, coalesce((SELECT event_seq FROM deliveries WHERE id = $1), $5), $6, $7,
             -- A retry of a delivery dropped meanwhile (its subscription disabled) will not be made:
             -- decided by the update of its row, which waits for a disable that holds it, and then
             -- finds it gone.
             ${kind === 'retry' ? `CASE WHEN EXISTS (SELECT 1 FROM delivery) THEN $8 ELSE ${withoutNextAttempt('$8')} END` : '$8'}
        FROM webhooks AS w WHERE w.id = $2
    ),
    trimmed AS (
      DELETE FROM attempts WHERE ${trim}::boolean AND webhook_id = $2
         AND seq <= (SELECT seq FROM attempts WHERE webhook_id = $2 ORDER BY seq DESC OFFSET ${ATTEMPTS_KEPT - 1} LIMIT 1)
    )
    ${
      // The dropped deliveries that were waiting for a retry: their announced attempts are ended by a
      // second statement (as the owner's disable does), whose snapshot holds a retry that committed
      // while this one waited for its row.
      kind === 'disable'
        ? `SELECT (SELECT array_agg(d.event_seq) FROM delivery AS d WHERE d.id <> $1 AND ${WAITING('d', '$11')}) AS waiting`
        : 'SELECT 1'
    }`;
}

/**
 * Records attempts that each move their delivery on (retried, or ended: delivered or given up), many
 * in one statement and one commit, as finishAttemptStatement does one by one: arrays $1 deliveries,
 * $2 subscriptions, $3 failing since, $4 attempt ids, $5 event positions, $6 times, $7 delivered,
 * $8 JSON, $9 next attempt times (null: ended), in the order they happened. A subscription's failing
 * time is the last of the batch, as it would be after the attempts one by one. The attempts past
 * ATTEMPTS_KEPT of the subscriptions in $10 are deleted (the batch's own rows count next time).
 */
export const FINISH_ATTEMPTS = `
  WITH batch AS (
    SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::bigint[], $6::bigint[],
                         $7::boolean[], $8::text[], $9::bigint[])
      WITH ORDINALITY AS b (delivery_id, webhook_id, failing_since_ms, attempt_id, event_seq, at_ms,
                            delivered, json, next_ms, ord)
  ),
  last AS (SELECT DISTINCT ON (webhook_id) webhook_id, failing_since_ms FROM batch ORDER BY webhook_id, ord DESC),
  hook AS (
    UPDATE webhooks AS w SET failing_since_ms = last.failing_since_ms FROM last
     WHERE w.id = last.webhook_id AND w.failing_since_ms IS DISTINCT FROM last.failing_since_ms
  ),
  retried AS (
    UPDATE deliveries AS d SET attempts_made = attempts_made + 1, next_attempt_at_ms = b.next_ms, lease_until_ms = 0
      FROM batch AS b WHERE d.id = b.delivery_id AND d.id = ANY ($1::bigint[]) AND b.next_ms IS NOT NULL
    RETURNING d.id
  ),
  recorded AS (
    INSERT INTO attempts (id, webhook_id, event_seq, at_ms, delivered, json)
    -- Each delivery looked up by its key, whatever the planner believes of the table's size (with
    -- statistics from when it was small, it read the whole queue to join it).
    SELECT b.attempt_id, b.webhook_id,
           coalesce((SELECT d.event_seq FROM deliveries AS d WHERE d.id = b.delivery_id), b.event_seq),
           b.at_ms, b.delivered,
           -- A retry of a delivery dropped meanwhile (its subscription disabled) will not be made:
           -- decided by the update of its row, which waits for a disable that holds it.
           CASE WHEN b.next_ms IS NULL OR b.delivery_id IN (SELECT id FROM retried)
                THEN b.json ELSE ${withoutNextAttempt('b.json')} END
      FROM batch AS b JOIN webhooks AS w ON w.id = b.webhook_id
     ORDER BY b.ord
  ),
  trimmed AS (
    DELETE FROM attempts AS a USING unnest($10::text[]) AS t (webhook_id)
     WHERE a.webhook_id = t.webhook_id
       AND a.seq <= (SELECT seq FROM attempts AS k WHERE k.webhook_id = t.webhook_id
                      ORDER BY seq DESC OFFSET ${ATTEMPTS_KEPT - 1} LIMIT 1)
  ),
  ended AS (
    DELETE FROM deliveries AS d USING batch AS b
     WHERE d.id = b.delivery_id AND d.id = ANY ($1::bigint[]) AND b.next_ms IS NULL
  )
  SELECT 1`;
