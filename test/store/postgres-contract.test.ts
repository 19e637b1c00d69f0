// One suite, every backend: the black-box HTTP contract tests (routing, hostile and malformed input,
// bodies, pets, paging, orders, Idempotency-Keys, authentication, rate limits, the sunset), the typed
// library access, the client, the HTTP fuzzer and the webhooks run here again, every service they start on
// PostgreSQL (a fresh schema each, in a database of this run) instead of the embedded store, and with
// its limits in Redis (a fresh key prefix each) instead of in memory. Each of the two that cannot be
// reached is skipped with one line (or fails the run when ANIMAL_STORE_TEST_SERVICES=required); the
// suite runs on whichever is there.
import { after, test } from 'node:test';
import { CONTRACT_DATABASE_VARIABLE, createTestDatabase, postgresSkipReason } from '../helpers/postgres.js';
import { CONTRACT_REDIS_VARIABLE, redisSkipReason, TEST_REDIS_URL } from '../helpers/redis.js';

const databaseSkip = await postgresSkipReason();
const redisSkip = await redisSkipReason();
if (databaseSkip !== undefined) test('the contract suite on PostgreSQL', { skip: databaseSkip }, () => {});
if (redisSkip !== undefined) test('the contract suite on the Redis limiter', { skip: redisSkip }, () => {});
if (databaseSkip === undefined || redisSkip === undefined) {
  const database = databaseSkip === undefined ? await createTestDatabase() : undefined;
  if (database !== undefined) process.env[CONTRACT_DATABASE_VARIABLE] = database.url;
  if (redisSkip === undefined) process.env[CONTRACT_REDIS_VARIABLE] = TEST_REDIS_URL;
  // Routing, and input no client should send.
  await import('../http/base-path.test.js');
  await import('../http/malformed-http.test.js');
  await import('../http/hostile-json.test.js');
  await import('../http/request-body.test.js');
  await import('../http/expect-continue.test.js');
  await import('../http/authentication.test.js');
  await import('../http/sunset.test.js');
  // The operations.
  await import('../http/pets-api.test.js');
  await import('../http/paging.test.js');
  await import('../orders/orders-api.test.js');
  await import('../orders/idempotency.test.js');
  await import('../limits-http/rate-limits.test.js');
  await import('../embedding/store-access.test.js');
  await import('../client/client.test.js');
  await import('../webhooks/webhooks-api.test.js');
  await import('../fuzz/http-api.test.js');
  // Registered last, so that it runs after the imported files' own after hooks have closed their
  // services: dropping the database first would cut their connections from under them.
  if (database !== undefined) after(() => database.drop());
}
