// How an instance hears that deliveries may be due, without polling: a trigger NOTIFYs a channel when
// any instance adds deliveries (and a store NOTIFYs when a subscription is disabled or deleted), and
// this LISTENs on a connection of its own, outside the pool, shared by every watcher of the store. It
// listens from the store's opening, so a watch is in force as soon as it is made; a lost connection is
// opened again, and the watchers are told then, since what happened meanwhile was not heard.
import { Client, type ClientConfig } from 'pg';
import { DELIVERIES_CHANNEL } from './schema.js';

/** Wait before opening a lost listening connection again. */
const RELISTEN_MS = 1000;

/** The listening connection of one store and the functions it calls. */
export class DeliveryListener {
  readonly #config: ClientConfig;
  /** One entry per `watch` call, so the same function watching twice is told twice and stopped once each. */
  readonly #watchers = new Set<{ onChange: () => void }>();
  #client: Client | undefined;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;
  /** A burst of notifications (one per committed change) is told once per turn of the event loop. */
  #telling = false;

  constructor(config: ClientConfig) {
    this.#config = config;
  }

  /** Starts listening; resolves once it listens, or once a first failure has been met (it then retries on its own). */
  listen(): Promise<void> {
    return new Promise((resolve) => this.#connect(resolve));
  }

  /** Calls `onChange` soon after each notification; returns a function that stops it. */
  watch(onChange: () => void): () => void {
    const watcher = { onChange };
    this.#watchers.add(watcher);
    return () => {
      this.#watchers.delete(watcher);
    };
  }

  /** Stops listening, for good. */
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
    listener.on('notification', () => this.#tell());
    listener
      .connect()
      .then(() => listener.query(`LISTEN ${DELIVERIES_CHANNEL}`))
      .then(() => {
        settled();
        // Closed while it connected: it ends here.
        if (this.#client !== listener) listener.end().catch(() => {});
        else if (reconnecting) this.#tell();
      })
      .catch(lost);
  }
}
