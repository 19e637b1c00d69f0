// Moving an embedded store into PostgreSQL (`animal-store migrate`), for a move from one instance to
// many: the data directory is opened as a service would open it (locked, its journal replayed), read
// whole, and copied into an empty database in one transaction. The directory is left as it was.
import { access } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Clock } from '../core/clock.js';
import { eventIdLetters } from '../events/event-id.js';
import type { LoggedAttempt } from '../store/embedded/attempt-log.js';
import type { DeliveredSet } from '../store/embedded/delivered-set.js';
import type { Copied, StoreContents } from '../store/postgres/copy-in.js';
import { NoStoreError } from './no-store-error.js';

/** What a move takes. */
export interface MoveOptions {
  /** The embedded store's data directory (it must hold a journal). */
  dataDir: string;
  /** The PostgreSQL database to copy into: empty of animal-store data; its schema is created. */
  databaseUrl: string;
  clock: Clock;
  /** Where the embedded store's warnings go while it is open (a torn tail cut off, a stale lock taken over). */
  warn: (line: string) => void;
}

/** Copies the embedded store of `dataDir` into the database; how many of each were copied. */
export async function moveToPostgres(options: MoveOptions): Promise<Copied> {
  const { dataDir, databaseUrl, clock, warn } = options;
  // Both backends are loaded only here: serving never loads this.
  const { JOURNAL_FILE, openEmbeddedStore } = await import('../store/embedded/open-embedded-store.js');
  const { renderedAttempt } = await import('../store/embedded/attempt-log.js');
  const holdsStore = await access(join(dataDir, JOURNAL_FILE)).then(
    () => true,
    () => false,
  );
  if (!holdsStore) throw new NoStoreError(`${resolve(dataDir)} holds no animal store (no ${JOURNAL_FILE})`);
  const source = await openEmbeddedStore({
    dataDir,
    clock,
    durability: 'always',
    fsyncIntervalMs: 1000,
    // Nothing is written, so nothing is compacted.
    compactMinRecords: Number.MAX_SAFE_INTEGER,
    warn,
  });
  try {
    const { state } = source;
    const { webhooks } = state;
    const subscriptions = webhooks.subscriptions.values();
    // Attempts are copied as PostgreSQL keeps them: rendered.
    const letters = eventIdLetters(source.cursorSecret);
    // The counters the directory would hand out next (undefined while it never recorded an event).
    const seqs = webhooks.seqs();
    const contents: StoreContents = {
      pets: [...state.pets.values()],
      orders: [...state.orders.values()],
      answers: [...state.idempotency.live(clock.now())],
      keys: await source.keys.list(),
      nextPetId: state.pets.nextId,
      nextOrderId: state.orders.nextId,
      cursorSecret: source.cursorSecret,
      events: [...webhooks.events.values()],
      subscriptions: subscriptions.map((entry) => entry.subscription),
      pending: subscriptions.flatMap(({ subscription, queue }) =>
        [...queue.values()].map((pending) => ({ subscriptionId: subscription.id, ...pending })),
      ),
      attempts: subscriptions.flatMap(({ subscription, attempts, delivered }) =>
        attempts.values().map((attempt) => {
          const json = renderedAttempt(letters, attempt);
          const { seq, id, eventSeq } = attempt;
          return {
            seq,
            id,
            subscriptionId: subscription.id,
            eventSeq,
            json,
            delivered: deliveredBy(attempt, json, delivered),
          };
        }),
      ),
      nextEventSeq: seqs?.op === 'seqs' ? seqs.nextEvent : 1,
      nextSubscriptionSeq: seqs?.op === 'seqs' ? seqs.nextSubscription : 1,
      nextAttemptSeq: seqs?.op === 'seqs' ? seqs.nextAttempt : 1,
    };
    const { openPool } = await import('../store/postgres/open-postgres-store.js');
    const { copyIntoEmpty } = await import('../store/postgres/copy-in.js');
    const { pool } = await openPool(databaseUrl, 1);
    try {
      return await copyIntoEmpty(pool, contents);
    } finally {
      await pool.end();
    }
  } finally {
    await source.close();
  }
}

/**
 * Whether `attempt` delivered its event: the receiver answered 2xx, and its event is among those
 * delivered to the subscription. The embedded store keeps the latter as a set of events, PostgreSQL as
 * a flag on the attempt; `recover` reads either to leave delivered events out.
 */
function deliveredBy(attempt: LoggedAttempt, json: string, delivered: DeliveredSet): boolean {
  if (!delivered.has(attempt.eventSeq)) return false;
  if (!('json' in attempt)) return attempt.delivered;
  // Recorded by an earlier release: its JSON tells.
  const { status, error } = JSON.parse(json) as { status: number | null; error: string | null };
  return error === null && status !== null && status >= 200 && status < 300;
}
