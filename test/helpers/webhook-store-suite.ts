// The contract of the WebhookStore (src/store/webhook-store.ts), as one suite that every store runs:
// the embedded store in memory and on a journal, and PostgreSQL. Each test opens a fresh store through
// the factory it is given, so the suite knows nothing of how a store is made. Times: events are
// recorded at fixed past times chosen by the tests; what a store dates itself ("due now" for a test,
// a redelivery or a recovery) is read with the wall clock, so claims that must see those deliveries
// are made a minute ahead of it.
import { describe } from 'node:test';
import type { Store } from '../../src/store/store.js';
import { deliveryTests } from './webhook-suite/deliveries.js';
import { eventTests } from './webhook-suite/events.js';
import { subscriptionTests } from './webhook-suite/subscriptions.js';

/** A store opened for one test; `reopen` (stores that keep data across opens) closes it and opens it again. */
export interface OpenedStore {
  store: Store;
  close(): Promise<void>;
  reopen?(): Promise<Store>;
}

/** Opens a fresh, empty store. */
export type OpenStore = () => Promise<OpenedStore>;

/** Registers the WebhookStore contract tests, under `name`, against the stores `open` makes. */
export function webhookStoreSuite(name: string, open: OpenStore): void {
  describe(`WebhookStore contract: ${name}`, () => {
    eventTests(open);
    subscriptionTests(open);
    deliveryTests(open);
  });
}
