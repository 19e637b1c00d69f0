// Pending deliveries on PostgreSQL: a queue in a table that every instance's worker claims from, as
// graphile-worker and pg-boss claim jobs (FOR UPDATE SKIP LOCKED inside the UPDATE that marks them
// taken). A claim is a lease: a delivery whose worker died mid-attempt falls due again when its lease
// ends and is claimed anew, by this instance or another; delivery is at least once. Workers hear of
// new deliveries through the deliveries channel (delivery-channel.ts), not by polling.
import type { Clock } from '../../core/clock.js';
import { eventSeqOf } from '../../events/event-id.js';
import { attemptJson } from '../attempt-json.js';
import type { AttemptResult, DeliveryStats, DueDelivery, Subscription, WebhookStore } from '../webhook-store.js';
import { FINISH_ATTEMPTS, TRIM_EVERY, finishAttemptStatement } from './attempt-statements.js';
import type { Database } from './database.js';
import type { DeliveryChannel } from './delivery-channel.js';
import { type EventRow, eventOf } from './webhook-rows.js';
import { PURGE_BATCH, SQL, named, statement } from './webhook-statements.js';

/** What a claimed delivery's row holds: the delivery, its event and its subscription. */
interface ClaimRow extends EventRow {
  id: string;
  attempts_made: number;
  webhook_id: string;
  owner_key_id: string;
  failing_since_ms: string | null;
  webhook_json: string;
}

/** A delivery id as the database has it, or null for text that no delivery id is. */
const deliveryKey = (id: string): string | null => (/^[1-9][0-9]{0,17}$/.test(id) ? id : null);

/**
 * Deliveries ended (deleted, or moved to a later attempt) by this instance after which it vacuums the
 * queue: its dead rows and their index entries would otherwise pile up where every claim's index scan
 * starts (a queue of 500 events a second to 10 subscriptions ends 5,000 a second), until autovacuum
 * came by, if the server runs it at all. A vacuum of a queue of a few thousand rows takes milliseconds;
 * every claim's scan and every look for the next due time passes over what it has not removed yet.
 */
const VACUUM_QUEUE_AFTER = 1000;
/**
 * The least pause after a vacuum, as a multiple of the time it took: a queue that fell behind is large,
 * and vacuuming it after every 1,000 deliveries would take much of the server's time that the
 * deliveries need (at most a fifth of one connection's time goes to vacuums).
 */
const VACUUM_PAUSE_FACTOR = 4;
/** Every this many vacuums of the queue, the statistics of its columns are taken again too (ANALYZE). */
const ANALYZE_EVERY = 10;
/** Attempts recorded by this instance after which it vacuums them (the trim then reads its index alone). */
const VACUUM_ATTEMPTS_AFTER = 20_000;

/** The part of the WebhookStore that a delivery worker uses. */
export type DeliveryQueue = Pick<
  WebhookStore,
  'claimDue' | 'finishAttempt' | 'finishAttempts' | 'dropDelivery' | 'nextDueMs' | 'watch' | 'purge' | 'stats'
>;

/** The deliveries table as the queue of every instance's worker. */
export class PostgresDeliveryQueue implements DeliveryQueue {
  readonly #database: Database;
  readonly #channel: DeliveryChannel;
  readonly #letters: string;
  readonly #clock: Clock;
  /** Deliveries ended and attempts recorded since the last vacuum of each table; a vacuum under way. */
  #endedSinceVacuum = 0;
  #recordedSinceVacuum = 0;
  #vacuuming = false;
  #queueVacuums = 0;
  /** The monotonic time (performance.now()) before which no vacuum starts. */
  #vacuumAfterMs = 0;
  /** Subscription id → attempts this instance recorded for it since it last deleted its old ones (TRIM_EVERY). */
  readonly #untrimmed = new Map<string, number>();

  /** `letters` are the store's event id letters; `clock` tells when a disable drops deliveries. */
  constructor(database: Database, channel: DeliveryChannel, letters: string, clock: Clock) {
    this.#database = database;
    this.#channel = channel;
    this.#letters = letters;
    this.#clock = clock;
  }

  async claimDue(
    nowMs: number,
    max: number,
    leaseMs: number,
    perSubscription: number,
    held: ReadonlyMap<string, number>,
    perFailingSubscription = perSubscription,
  ): Promise<DueDelivery[]> {
    if (max <= 0 || perSubscription <= 0) return [];
    const rows = await this.#database.query<ClaimRow>(
      statement('claimDue', [
        nowMs,
        max,
        leaseMs,
        perSubscription,
        [...held.keys()],
        [...held.values()],
        perFailingSubscription,
      ]),
    );
    return rows.map((row) => {
      const { url, secrets } = JSON.parse(row.webhook_json) as Pick<Subscription, 'url' | 'secrets'>;
      return {
        deliveryId: row.id,
        event: eventOf(row),
        subscriptionId: row.webhook_id,
        ownerKeyId: row.owner_key_id,
        url,
        secrets: secrets.filter((s) => s.expiresAtMs === null || s.expiresAtMs > nowMs).map((s) => s.secret),
        attemptsMade: row.attempts_made,
        failingSinceMs: row.failing_since_ms === null ? null : Number(row.failing_since_ms),
      };
    });
  }

  async finishAttempt(result: AttemptResult): Promise<void> {
    const kind = result.disableReason !== undefined ? 'disable' : result.nextAttemptAtMs === null ? 'end' : 'retry';
    const values = this.#attemptValues(result);
    if (kind === 'retry') values.push(result.nextAttemptAtMs);
    if (kind === 'disable') values.push(result.disableReason);
    values.push(this.#trimDue([result.subscriptionId]).length > 0);
    if (kind === 'disable') values.push(this.#clock.now());
    const finish = named(`finish_${kind}`, finishAttemptStatement(kind), values);
    if (kind === 'disable') {
      await this.#database.transaction(async (client) => {
        const { rows } = await client.query<{ waiting: string[] | null }>(finish);
        const waiting = rows[0]?.waiting;
        if (waiting) await client.query(statement('endSchedules', [result.subscriptionId, waiting]));
      });
      this.#channel.announce();
    } else {
      await this.#database.query(finish);
    }
    this.#ended(1);
  }

  /**
   * In the order given: each run of attempts that retry or end their delivery is one statement (one
   * round trip and one commit, however many), each that disables its subscription one of its own.
   */
  async finishAttempts(results: readonly AttemptResult[]): Promise<void> {
    let run: AttemptResult[] = [];
    const flushRun = async (): Promise<void> => {
      const taken = run;
      run = [];
      if (taken.length === 1) await this.finishAttempt(taken[0] as AttemptResult);
      if (taken.length <= 1) return;
      const rows = taken.map((result) => this.#attemptValues(result));
      const column = (index: number): unknown[] => rows.map((row) => row[index]);
      const nextAttempts = taken.map((result) => result.nextAttemptAtMs);
      const trimmed = this.#trimDue(taken.map((result) => result.subscriptionId));
      await this.#database.query(
        named('finish_many', FINISH_ATTEMPTS, [...[0, 1, 2, 3, 4, 5, 6, 7].map(column), nextAttempts, trimmed]),
      );
      this.#ended(taken.length);
    };
    for (const result of results) {
      if (result.disableReason === undefined) {
        run.push(result);
        continue;
      }
      await flushRun();
      await this.finishAttempt(result);
    }
    await flushRun();
  }

  /**
   * Counts an attempt for each of `subscriptionIds`; returns those whose old attempts are to be
   * deleted with these, every TRIM_EVERY attempts this instance records for them. (Each instance
   * counts its own: with n instances, a subscription holds at most ATTEMPTS_KEPT + n × TRIM_EVERY
   * rows, and the listing shows ATTEMPTS_KEPT.)
   */
  #trimDue(subscriptionIds: readonly string[]): string[] {
    const due = new Set<string>();
    for (const id of subscriptionIds) {
      const count = (this.#untrimmed.get(id) ?? 0) + 1;
      if (count < TRIM_EVERY) {
        this.#untrimmed.set(id, count);
        continue;
      }
      due.add(id);
      this.#untrimmed.delete(id);
    }
    return [...due];
  }

  /** $1 to $8 of the attempt statements. */
  #attemptValues(result: AttemptResult): unknown[] {
    const { attempt, event } = result;
    return [
      deliveryKey(result.deliveryId),
      result.subscriptionId,
      result.failingSinceMs,
      attempt.id,
      // The event's position when the delivery is gone (its subscription was disabled meanwhile).
      eventSeqOf(this.#letters, event.id) ?? 0,
      Math.trunc(attempt.attemptedAtMs),
      result.delivered,
      attemptJson(attempt, event, result.delivered, result.nextAttemptAtMs),
    ];
  }

  async dropDelivery(deliveryId: string): Promise<void> {
    await this.#database.query(statement('dropDelivery', [deliveryKey(deliveryId)]));
    this.#ended(0, 1);
  }

  /**
   * Counts `attempts` recorded, each ending or moving on its delivery, and `dropped` deliveries; past
   * a threshold, vacuums the table in the background, one vacuum at a time and after a pause
   * (VACUUM_PAUSE_FACTOR). SKIP_LOCKED: a vacuum of another instance under way is not waited for.
   */
  #ended(attempts: number, dropped = 0): void {
    this.#endedSinceVacuum += attempts + dropped;
    this.#recordedSinceVacuum += attempts;
    if (this.#vacuuming || performance.now() < this.#vacuumAfterMs) return;
    let key: 'vacuumDeliveries' | 'vacuumAnalyzeDeliveries' | 'vacuumAttempts';
    if (this.#endedSinceVacuum >= VACUUM_QUEUE_AFTER) {
      this.#endedSinceVacuum = 0;
      key = this.#queueVacuums++ % ANALYZE_EVERY === 0 ? 'vacuumAnalyzeDeliveries' : 'vacuumDeliveries';
    } else if (this.#recordedSinceVacuum >= VACUUM_ATTEMPTS_AFTER) {
      this.#recordedSinceVacuum = 0;
      key = 'vacuumAttempts';
    } else return;
    this.#vacuuming = true;
    const startedMs = performance.now();
    this.#database
      .query({ text: SQL[key] })
      // A vacuum refused (the table belongs to another role) or interrupted is left to autovacuum.
      .catch(() => {})
      .finally(() => {
        this.#vacuuming = false;
        const endedMs = performance.now();
        this.#vacuumAfterMs = endedMs + VACUUM_PAUSE_FACTOR * (endedMs - startedMs);
      });
  }

  async nextDueMs(): Promise<number | undefined> {
    const rows = await this.#database.query<{ due_ms: string | null }>(statement('nextDue', []));
    const dueMs = rows[0]?.due_ms;
    return dueMs == null ? undefined : Number(dueMs);
  }

  watch(onChange: () => void): () => void {
    return this.#channel.watch(onChange);
  }

  async purge(eventsBeforeMs: number): Promise<void> {
    // In batches: a day of events may be many rows, and one statement would hold their locks throughout.
    for (const key of ['purgeEvents', 'purgeAttempts'] as const) {
      for (;;) {
        const rows = await this.#database.query<{ count: string }>(statement(key, [eventsBeforeMs]));
        if (Number(rows[0]?.count ?? 0) < PURGE_BATCH) break;
      }
    }
    await this.#database.query(statement('purgeOrphans', []));
  }

  async stats(): Promise<DeliveryStats> {
    const rows = await this.#database.query<{
      pending: string;
      oldest_ms: string | null;
      disabled: string;
      events: string | null;
    }>(statement('stats', []));
    const row = rows[0];
    return {
      events: Number(row?.events ?? 0),
      pending: Number(row?.pending ?? 0),
      oldestPendingMs: row?.oldest_ms == null ? null : Number(row.oldest_ms),
      disabledSubscriptions: Number(row?.disabled ?? 0),
    };
  }

  /** Stops listening for changes of other instances. */
  close(): void {
    this.#channel.close();
  }
}
