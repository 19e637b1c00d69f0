// The header fields of one answer: X-Request-Id first, fields in the order they were set, a field set
// again replacing its value in place, as an object's property would.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ResponseHeaders } from '../../src/http/response-headers.js';

test('fields keep the order they were set in, and a field set again keeps its place', () => {
  const headers = new ResponseHeaders('req-1');
  headers.set('deprecation', '@1795305600');
  headers.setPairs([
    ['x-ratelimit-limit', '60'],
    ['retry-after', '3'],
  ]);
  headers.setAll({ link: '</v1/pets>; rel="next"', 'retry-after': '5' });
  headers.set('x-request-id', 'req-2');
  assert.deepEqual(headers.list, [
    'x-request-id',
    'req-2',
    'deprecation',
    '@1795305600',
    'x-ratelimit-limit',
    '60',
    'retry-after',
    '5',
    'link',
    '</v1/pets>; rel="next"',
  ]);
});
