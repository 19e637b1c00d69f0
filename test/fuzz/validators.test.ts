// Generated input for the body and query validators (fast-check, bounded runs, fixed seed
// unless FUZZ_SEED says otherwise). An independent oracle of README "How the API behaves" decides what must
// be accepted; anything else must be an ApiError with the right code, never another exception.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ApiError } from '../../src/core/errors.js';
import { readListQuery } from '../../src/http/list-query.js';
import { validateNewPet, validatePetListQuery } from '../../src/pets/validate.js';
import { call, startServer } from '../helpers/server.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const RUNS = { seed: SEED, numRuns: 400 };

/** README "How the API behaves", written independently of the TypeBox schema. */
function oracleAccepts(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const keys = Object.keys(body);
  if (!keys.every((key) => key === 'name' || key === 'categoryId' || key === 'status')) return false;
  const { name, categoryId, status } = body as Record<string, unknown>;
  if (
    typeof name !== 'string' ||
    [...name].length < 1 ||
    [...name].length > 200 ||
    name.trim() === '' ||
    !name.isWellFormed()
  )
    return false;
  if (
    typeof categoryId !== 'number' ||
    !Number.isInteger(categoryId) ||
    categoryId < 1 ||
    categoryId > Number.MAX_SAFE_INTEGER
  )
    return false;
  return !keys.includes('status') || status === 'available' || status === 'pending' || status === 'sold';
}

const nameArbitrary = fc.oneof(
  fc.string({ minLength: 0, maxLength: 5 }),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 210 }),
  fc.string({ unit: fc.constantFrom(' ', '\t', '\u00a0', '\ufeff', '\u2028', 'a'), maxLength: 4 }),
  fc.constantFrom('\ud800', 'a\udc00', '😀'.repeat(200), '😀'.repeat(201), 'x'.repeat(200), 'x'.repeat(201)),
  fc.anything(),
);
const categoryArbitrary = fc.oneof(
  fc.integer({ min: -5, max: 5 }),
  fc.double(),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 1, 3.0, -0, Number.POSITIVE_INFINITY, 2 ** 60),
  fc.anything(),
);
const statusArbitrary = fc.oneof(fc.constantFrom('available', 'pending', 'sold', 'Sold', '', 'lost'), fc.anything());
const newPetArbitrary = fc.record(
  { name: nameArbitrary, categoryId: categoryArbitrary, status: statusArbitrary, extra: fc.anything() },
  { requiredKeys: [] },
);

test('validateNewPet accepts exactly what the contract accepts, and refuses only with invalid_body', () => {
  fc.assert(
    fc.property(fc.oneof(newPetArbitrary, fc.jsonValue()), (body) => {
      let accepted: boolean;
      try {
        validateNewPet(body);
        accepted = true;
      } catch (error) {
        assert.ok(error instanceof ApiError, `not an ApiError: ${String(error)}`);
        assert.equal(error.code, 'invalid_body');
        assert.ok(error.details !== undefined && error.details.length > 0);
        assert.ok(error.message.length > 0);
        accepted = false;
      }
      assert.equal(accepted, oracleAccepts(body), JSON.stringify(body));
    }),
    RUNS,
  );
});

test('__proto__, constructor and prototype members are refused and pollute nothing', () => {
  fc.assert(
    fc.property(fc.constantFrom('__proto__', 'constructor', 'prototype'), fc.jsonValue(), (key, value) => {
      const body = JSON.parse(`{"name":"a","categoryId":1,${JSON.stringify(key)}:${JSON.stringify(value)}}`) as unknown;
      assert.throws(
        () => validateNewPet(body),
        (error: unknown) => error instanceof ApiError && error.code === 'invalid_body',
      );
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
      assert.equal(Object.hasOwn(Object.prototype, 'name'), false);
    }),
    { seed: SEED, numRuns: 100 },
  );
});

// HTTP reads the query string, the pet service checks it with this validator.
const parseQuery = (query: string) => validatePetListQuery(readListQuery(query));
const queryPart = fc
  .oneof(
    fc.tuple(
      fc.constantFrom('limit', 'status', 'cursor', 'Limit', 'x', ''),
      fc.oneof(
        fc.string(),
        fc.integer({ min: -5, max: 200 }).map(String),
        fc.constantFrom('01', '1e1', '+1', '100', '1', 'sold', '%31', '%'),
      ),
    ),
  )
  .map(([name, value]) => `${name}=${encodeURIComponent(value)}`);

test('the list query parser accepts only limits 1..100 and known statuses, and refuses only with invalid_query', () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.array(queryPart, { maxLength: 5 }).map((parts) => parts.join('&')),
        fc.string(),
      ),
      (query) => {
        try {
          const parsed = parseQuery(query);
          if (parsed.limit !== undefined)
            assert.ok(Number.isInteger(parsed.limit) && parsed.limit >= 1 && parsed.limit <= 100, query);
          if (parsed.status !== undefined) assert.ok(['available', 'pending', 'sold'].includes(parsed.status), query);
          const names = [...new URLSearchParams(query).keys()];
          for (const name of ['limit', 'status', 'cursor'])
            assert.ok(names.filter((each) => each === name).length <= 1, `repeated ${name} accepted: ${query}`);
        } catch (error) {
          assert.ok(error instanceof ApiError, `not an ApiError: ${String(error)}`);
          assert.equal(error.code, 'invalid_query');
        }
      },
    ),
    RUNS,
  );
});

test('arbitrary bytes as a POST body are answered 201 or a 4xx of the table, never a 5xx, and 4xx change nothing', async () => {
  const server = await startServer();
  try {
    const bodies = fc.oneof(
      fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
      fc.jsonValue().map((value) => Buffer.from(JSON.stringify(value) ?? 'null')),
      newPetArbitrary.map((value) => Buffer.from(JSON.stringify(value) ?? 'null')),
    );
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        const before = Number((await call(server, 'GET', '/v1/pets?limit=1')).headers['x-total-count']);
        const reply = await call(server, 'POST', '/v1/pets', { body, headers: { 'content-type': 'application/json' } });
        const after = Number((await call(server, 'GET', '/v1/pets?limit=1')).headers['x-total-count']);
        if (reply.status === 201) {
          assert.equal(after, before + 1);
        } else {
          assert.equal(reply.status, 400, reply.text);
          assert.ok(['invalid_json', 'invalid_body'].includes((reply.json as { code: string }).code), reply.text);
          assert.equal(after, before, 'a refused body changes nothing');
        }
      }),
      { seed: SEED, numRuns: 150 },
    );
  } finally {
    await server.close();
  }
});
