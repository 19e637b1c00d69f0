// How instances tell each other that deliveries may be due, without polling: after a change that added
// deliveries (or disabled or deleted a subscription) commits, its instance NOTIFYs a channel, and every
// instance LISTENs on it on a connection of its own, outside the pool, shared by every watcher of the
// store, from the store's opening (so a watch is in force as soon as it is made).
//
// The NOTIFY is sent after the commit, not inside the change's transaction: PostgreSQL serialises the
// commits of transactions that notify (one lock for the whole server, held through the commit's flush),
// which took creates with a subscription from about 4,000 to 1,000-2,300 a second on the development
// machine (16 writers). Sent after, it costs one short statement, shared by every change that commits
// while one is under way, and the change itself keeps its group commit. An instance that dies between
// the commit and the NOTIFY leaves the others to find the deliveries on their timer, later but surely.
// The announcing instance's own watchers are told at once, not when its notice comes back through the
// server: each notice carries its instance's token, and an instance does not tell its own twice.
import { randomUUID } from 'node:crypto';
import { Client, type ClientConfig, type Pool } from 'pg';
import { DELIVERIES_CHANNEL } from './schema.js';

/** Wait before opening a lost listening connection again. */
const RELISTEN_MS = 1000;

/** The deliveries channel of one store: its listening connection, its watchers, and its announcements. */
export class DeliveryChannel {
  readonly #config: ClientConfig;
  readonly #pool: Pool;
  /** The payload of this instance's notices, by which it knows them when they come back. */
  readonly #token = randomUUID();
  /** One entry per `watch` call, so the same function watching twice is told twice and stopped once each. */
  readonly #watchers = new Set<{ onChange: () => void }>();
  #client: Client | undefined;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;
  /** A burst of notifications (one per committed change) is told once per turn of the event loop. */
  #telling = false;
  #announcing = false;
  #announceAgain = false;

  /** `config` opens the listening connection; `pool` sends the announcements. */
  constructor(config: ClientConfig, pool: Pool) {
    this.#config = config;
    this.#pool = pool;
  }

  /** Starts listening; resolves once it listens, or once a first failure has been met (it then retries on its own). */
  listen(): Promise<void> {
    return new Promise((resolve) => this.#connect(resolve));
  }

  /** Calls `onChange` soon after each announcement of any instance; returns a function that stops it. */
  watch(onChange: () => void): () => void {
    const watcher = { onChange };
    this.#watchers.add(watcher);
    return () => {
      this.#watchers.delete(watcher);
    };
  }

  /**
   * Tells every instance that deliveries may be due, once what was written has committed: this
   * one's watchers at once, the others by a NOTIFY that starts after this call. While one is under way, the calls meanwhile
   * share the next one. Nothing waits for it; a failure is left to the watchers' timers.
   */
  announce(): void {
    if (this.#closed) return;
    this.#tell();
    if (this.#announcing) {
      this.#announceAgain = true;
      return;
    }
    this.#announcing = true;
    this.#pool
      .query({
        name: 'animal_store_announce',
        text: `SELECT pg_notify('${DELIVERIES_CHANNEL}', $1)`,
        values: [this.#token],
      })
      .catch(() => {})
      .finally(() => {
        this.#announcing = false;
        if (!this.#announceAgain) return;
        this.#announceAgain = false;
        this.announce();
      });
  }

  /** Stops listening and announcing, for good. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    client?.end().catch(() => {});
  }

  #tell(): void {
    if (this.#telling) return;
    this.#telling = true;
    setImmediate(() => {
      this.#telling = false;
      for (const watcher of [...this.#watchers]) watcher.onChange();
    });
  }

  /** Opens the listening connection; `settled` is called once it listens or has failed. */
  #connect(settled: () => void, reconnecting = false): void {
    const listener = new Client(this.#config);
    this.#client = listener;
    const lost = (): void => {
      settled();
      if (this.#client !== listener) return;
      this.#client = undefined;
      listener.end().catch(() => {});
      if (this.#closed) return;
      this.#retry = setTimeout(() => this.#connect(() => {}, true), RELISTEN_MS);
      this.#retry.unref();
    };
    listener.on('error', lost);
    listener.on('end', lost);
    // This instance's own notices were told when it sent them.
    listener.on('notification', (notice) => {
      if (notice.payload !== this.#token) this.#tell();
    });
    listener
      .connect()
      .then(() => listener.query(`LISTEN ${DELIVERIES_CHANNEL}`))
      .then(() => {
        settled();
        // Closed while it connected: it ends here. Back after a loss: what happened meanwhile was not heard.
        if (this.#client !== listener) listener.end().catch(() => {});
        else if (reconnecting) this.#tell();
      })
      .catch(lost);
  }
}
