import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ApiError } from '../../src/core/errors.js';
import {
  parameters,
  parsePositiveInteger,
  readIdSegment,
  readQuery,
  splitTarget,
} from '../../src/http/request-target.js';
import { validatePetId } from '../../src/pets/validate.js';

test('the target splits into the raw path and the raw query', () => {
  assert.deepEqual(splitTarget('/v1/pets?limit=5&x=%20'), { path: '/v1/pets', query: 'limit=5&x=%20' });
  assert.deepEqual(splitTarget('/v1/pets'), { path: '/v1/pets', query: '' });
  assert.deepEqual(splitTarget('/v1/pets/%2e%2e'), { path: '/v1/pets/%2e%2e', query: '' });
});

test('the absolute form is reduced to its path and query', () => {
  assert.deepEqual(splitTarget('http://example.com:80/v1/pets?limit=1'), { path: '/v1/pets', query: 'limit=1' });
  assert.deepEqual(splitTarget('http://example.com'), { path: '/', query: '' });
  assert.deepEqual(splitTarget('*'), { path: '*', query: '' });
});

test('known query parameters are read; unknown ones and other cases are ignored', () => {
  assert.deepEqual(readQuery('limit=5&Limit=9&foo=1&status=sold', ['limit', 'status']), { limit: '5', status: 'sold' });
  assert.deepEqual(readQuery('', ['limit']), {});
});

test('query parameters are split and decoded exactly as URLSearchParams does, with or without its fast path', () => {
  // Seeded pseudo-random queries over the characters that matter to form decoding, so every run is the same.
  const alphabet = ['a', 'b', '=', '&', '%', '+', '2', '0', 'é', '?', ';', ' ', '%41', '%zz', '%C3%A9'];
  let seed = 12345;
  const nextIndex = (): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % alphabet.length;
  };
  const queries = ['', '&', '&&a', 'a', 'a=', '=a', '==', 'a=b=c', 'a&b=&=c&', 'limit=20&cursor=x.y_z-1'];
  for (let count = 0; count < 2000; count++) {
    let query = '';
    const length = nextIndex() + nextIndex();
    for (let index = 0; index < length; index++) query += alphabet[nextIndex()];
    queries.push(query);
  }
  for (const query of queries) assert.deepEqual([...parameters(query)], [...new URLSearchParams(query)], query);
});

test('a known query parameter sent twice is invalid_query naming it', () => {
  assert.throws(
    () => readQuery('limit=1&limit=2', ['limit']),
    (error: unknown) =>
      error instanceof ApiError && error.code === 'invalid_query' && error.message.includes('"limit"'),
  );
  assert.deepEqual(readQuery('foo=1&foo=2', ['limit']), {});
});

test('path ids are plain decimal digits from 1 to 2^53 − 1: HTTP reads the number, the pet service refuses the rest', () => {
  assert.equal(readIdSegment('1'), 1);
  assert.equal(readIdSegment('9007199254740991'), 9007199254740991);
  assert.equal(validatePetId(readIdSegment('9007199254740991')), 9007199254740991);
  for (const bad of [
    'abc',
    '0',
    '01',
    '+1',
    '-1',
    '1.5',
    '1e3',
    '0x10',
    '%20%31',
    '%31',
    '9007199254740992',
    '99999999999999999999',
    '',
    ' 1',
    '..',
  ]) {
    assert.equal(readIdSegment(bad), bad, `${bad} stays text`);
    assert.throws(
      () => validatePetId(readIdSegment(bad)),
      (error: unknown) =>
        error instanceof ApiError && error.code === 'invalid_parameter' && error.message.includes('"petId"'),
      bad,
    );
  }
});

test('digits are read as the expression ^[1-9][0-9]*$ and Number read them, up to the maximum', () => {
  const byExpression = (text: string, max: number): number | undefined =>
    text.length <= 16 && /^[1-9][0-9]*$/.test(text) && Number(text) <= max ? Number(text) : undefined;
  const text = fc.oneof(
    fc.stringMatching(/^[0-9]{0,18}$/),
    fc.string({ unit: fc.constantFrom('0', '1', '9', '-', '+', '.', 'e', ' ', '\u0660', '/', ':') }),
    fc.bigInt({ min: 0n, max: 2n ** 60n }).map(String),
  );
  const max = fc.constantFrom(Number.MAX_SAFE_INTEGER, 100, 1, 2 ** 53 - 2);
  fc.assert(
    fc.property(text, max, (value, limit) => parsePositiveInteger(value, limit) === byExpression(value, limit)),
    { numRuns: 5000 },
  );
  for (const edge of ['9007199254740991', '9007199254740992', '9007199254740993', '9999999999999999'])
    assert.equal(parsePositiveInteger(edge, Number.MAX_SAFE_INTEGER), byExpression(edge, Number.MAX_SAFE_INTEGER));
});
