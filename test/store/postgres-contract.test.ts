// One suite, two stores: the black-box contract tests of pets, paging, orders, Idempotency-Keys,
// authentication, the typed library access and the client run here again, every service they start
// on PostgreSQL (a fresh schema each, in a database of this run) instead of the embedded store.
import { after, test } from 'node:test';
import { CONTRACT_DATABASE_VARIABLE, createTestDatabase, postgresSkipReason } from '../helpers/postgres.js';

const skip = await postgresSkipReason();
if (skip !== undefined) {
  test('the contract suite on PostgreSQL', { skip }, () => {});
} else {
  const database = await createTestDatabase();
  process.env[CONTRACT_DATABASE_VARIABLE] = database.url;
  after(() => database.drop());
  await import('../http/pets-api.test.js');
  await import('../http/paging.test.js');
  await import('../orders/orders-api.test.js');
  await import('../orders/idempotency.test.js');
  await import('../http/authentication.test.js');
  await import('../embedding/store-access.test.js');
  await import('../client/client.test.js');
}
