// How an instance hears that deliveries may be due, without polling: a trigger NOTIFYs a channel when
// any instance adds deliveries (and a store NOTIFYs when a subscription is disabled or deleted), and
// this LISTENs on a connection of its own, outside the pool, shared by every watcher of the store. A
// lost connection is opened again; watchers are told then, and when it first listens, since changes
// made while nobody listened were not heard.
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
  /** A burst of notifications (one per committed change) is told once per turn of the event loop. */
  #telling = false;

  constructor(config: ClientConfig) {
    this.#config = config;
  }

  /** Calls `onChange` soon after each notification (and once listening); returns a function that stops it. */
  watch(onChange: () => void): () => void {
    const watcher = { onChange };
    this.#watchers.add(watcher);
    if (this.#client === undefined && this.#retry === undefined) this.#listen();
    return () => {
      if (!this.#watchers.delete(watcher) || this.#watchers.size > 0) return;
      this.close();
    };
  }

  /** Stops listening; a later `watch` listens again. */
  close(): void {
    clearTimeout(this.#retry);
    this.#retry = undefined;
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

  #listen(): void {
    const listener = new Client(this.#config);
    this.#client = listener;
    const lost = (): void => {
      if (this.#client !== listener) return;
      this.#client = undefined;
      listener.end().catch(() => {});
      if (this.#watchers.size === 0) return;
      this.#retry = setTimeout(() => {
        this.#retry = undefined;
        if (this.#watchers.size > 0) this.#listen();
      }, RELISTEN_MS);
      this.#retry.unref();
    };
    listener.on('error', lost);
    listener.on('end', lost);
    listener.on('notification', () => this.#tell());
    listener
      .connect()
      .then(() => listener.query(`LISTEN ${DELIVERIES_CHANNEL}`))
      .then(() => {
        if (this.#client === listener) this.#tell();
      })
      .catch(lost);
  }
}
