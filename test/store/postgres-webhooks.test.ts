// The WebhookStore contract suite on PostgreSQL: every test on a new database of a server of this
// run's own (or of the shared test server when PostgreSQL's programs are not installed here); a
// reopen is a new instance of the service on the same database.
import { after, before, test } from 'node:test';
import { systemClock } from '../../src/core/clock.js';
import type { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import {
  type EventsServer,
  eventsServerSkipReason,
  openEventsServer,
  untilListable,
} from '../helpers/postgres-events.js';
import { openStore } from '../helpers/postgres-webhook-store.js';
import { webhookStoreSuite } from '../helpers/webhook-store-suite.js';

const skip = await eventsServerSkipReason();
if (skip !== undefined) {
  test('the WebhookStore contract suite on PostgreSQL', { skip }, () => {});
} else {
  let server: EventsServer;
  before(async () => {
    server = await openEventsServer();
  });
  after(() => server.close());

  /** A store on `url`; on a shared server, its listing waits until what was committed can be listed. */
  const instance = async (url: string): Promise<PostgresStore> => {
    const store = await openStore(url, systemClock);
    if (!server.private) {
      const pageEvents = store.webhooks.pageEvents.bind(store.webhooks);
      store.webhooks.pageEvents = async (request) => {
        await untilListable(url);
        return pageEvents(request);
      };
    }
    return store;
  };

  webhookStoreSuite('PostgreSQL', async () => {
    const url = await server.database();
    let store = await instance(url);
    return {
      get store() {
        return store;
      },
      close: () => store.close(),
      reopen: async () => {
        await store.close();
        store = await instance(url);
        return store;
      },
    };
  });
}
