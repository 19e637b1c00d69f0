// Admission, alone, over the in-memory limiter on a manual clock: the address's failed-authentication
// budget, the key, the key's limits and the service's capacity, in that order, each refusal worded by
// HTTP from the limiter's numbers, and an in-memory decision taken at once, with no promise.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { ApiError } from '../../src/core/errors.js';
import { Admission, type AdmissionOptions } from '../../src/http/admission.js';
import { ResponseHeaders } from '../../src/http/response-headers.js';
import { KeyRing } from '../../src/keys/key-ring.js';
import { MemoryLimiter } from '../../src/limits/index.js';
import { DISPATCH_KEY, dispatchKeyRecord } from '../helpers/dispatcher.js';
import { fakeRequest } from '../helpers/fake-http.js';

const T0_MS = Date.UTC(2027, 0, 1);

function setup(overrides: Partial<AdmissionOptions> = {}) {
  const clock = new ManualClock(T0_MS);
  const limiter = new MemoryLimiter(clock, { failedAuthCapacity: 2, failedAuthWindowMs: 60_000 });
  const refused: string[] = [];
  let shed = 0;
  const admission = new Admission({
    keys: new KeyRing([dispatchKeyRecord({ perMinute: 2, perDay: 100 })]),
    limiter,
    trustProxy: false,
    maxInFlight: 1,
    isAccepting: () => true,
    observe: {
      answered: () => {},
      refused: (code, banStarted) => refused.push(`${code}${banStarted ? ' (ban started)' : ''}`),
      shed: () => shed++,
    },
    ...overrides,
  });
  return { admission, clock, refused, shed: () => shed };
}

const withKey = (key = DISPATCH_KEY) => fakeRequest({ headers: { host: 'x', authorization: `Bearer ${key}` } });

/** The fields set on `headers`, by name. */
const fields = (headers: ResponseHeaders): Record<string, string> => {
  const list = headers.list;
  const result: Record<string, string> = {};
  for (let index = 0; index < list.length; index += 2) result[list[index] as string] = list[index + 1] as string;
  return result;
};

const refusal = (code: string, message: string) => (error: unknown) =>
  error instanceof ApiError && error.code === code && error.message === message;

test('a request with a valid key within its limits is admitted at once, its rate-limit fields set', () => {
  const { admission } = setup();
  const headers = new ResponseHeaders('r');
  const key = admission.admit(withKey(), headers);
  assert.ok(!(key instanceof Promise), 'the in-memory limiter answers without a promise');
  assert.equal(key.id, 'key_1');
  assert.deepEqual(fields(headers), {
    'x-request-id': 'r',
    'x-ratelimit-limit': '2',
    'x-ratelimit-remaining': '1',
    'x-ratelimit-reset': String(T0_MS / 1000 + 30),
    'ratelimit-policy': '"minute";q=2;w=60, "day";q=100;w=86400',
    ratelimit: '"minute";r=1;t=30',
  });
});

test('a key over its limits is refused 429 rate_limited with Retry-After; the refusal is observed', async () => {
  const { admission, refused } = setup();
  await admission.admit(withKey(), new ResponseHeaders('r'));
  await admission.admit(withKey(), new ResponseHeaders('r'));
  const headers = new ResponseHeaders('r');
  assert.throws(
    () => admission.admit(withKey(), headers),
    refusal('rate_limited', 'Too many requests; retry in 30 s (see Retry-After) and back off exponentially'),
  );
  assert.equal(fields(headers)['retry-after'], '30');
  assert.deepEqual(refused, ['rate_limited']);
});

test('a request that counts against no key after all gets its token back', async () => {
  const { admission } = setup();
  const key = admission.admit(withKey(), new ResponseHeaders('r'));
  if (key instanceof Promise) assert.fail('a promise');
  await admission.refund(key);
  const headers = new ResponseHeaders('r');
  await admission.admit(withKey(), headers);
  assert.equal(fields(headers)['x-ratelimit-remaining'], '1', 'the refunded token was there to take');
});

test('a missing or invalid key is 401, charged to the address, and the 401 tells of its bucket', async () => {
  const { admission } = setup();
  const headers = new ResponseHeaders('r');
  await assert.rejects(
    async () => admission.admit(withKey('wrong-key-0123456789'), headers),
    (error: unknown) => error instanceof ApiError && error.code === 'unauthorized',
  );
  assert.equal(fields(headers)['ratelimit-policy'], '"failed-auth";q=2;w=60');
  assert.equal(fields(headers).ratelimit, '"failed-auth";r=1;t=30');
});

test('an address out of failed authentications is refused before its key is looked at, and told so truthfully', async () => {
  const ring = new KeyRing([dispatchKeyRecord()]);
  let lookups = 0;
  const keys = {
    get generation() {
      return ring.generation;
    },
    findByToken(token: string) {
      lookups++;
      return ring.findByToken(token);
    },
  };
  const { admission, clock, refused } = setup({ keys });
  for (let attempt = 0; attempt < 2; attempt++)
    await assert.rejects(async () => admission.admit(withKey('wrong-key-0123456789'), new ResponseHeaders('r')));
  const before = lookups;
  const headers = new ResponseHeaders('r');
  const message =
    'Too many failed authentications from this address; wait 30 s (see Retry-After): until then every request from it is refused before its key is looked at';
  assert.throws(() => admission.admit(withKey(), headers), refusal('rate_limited', message));
  assert.equal(lookups, before, 'the valid key was not even looked at');
  assert.doesNotMatch(message, /check the key/i);
  assert.equal(fields(headers)['retry-after'], '30');
  assert.equal(fields(headers).ratelimit, '"failed-auth";r=0;t=60');
  assert.deepEqual(refused, ['rate_limited']);
  clock.advance(30_000);
  assert.equal((admission.admit(withKey(), new ResponseHeaders('r')) as { id: string }).id, 'key_1');
});

test('a stopping service or one at capacity refuses with 503 and Retry-After: 1; shedding is observed', () => {
  const stopping = setup({ isAccepting: () => false });
  assert.throws(
    () => stopping.admission.assertCapacity(1),
    (error: unknown) =>
      error instanceof ApiError &&
      error.code === 'unavailable' &&
      error.retryAfterSeconds === 1 &&
      error.headers?.connection === 'close',
  );
  const busy = setup();
  assert.doesNotThrow(() => busy.admission.assertCapacity(1));
  assert.throws(
    () => busy.admission.assertCapacity(2),
    refusal('unavailable', 'The service is at capacity (1 requests in flight); retry after the Retry-After seconds'),
  );
  assert.equal(busy.shed(), 1);
});
