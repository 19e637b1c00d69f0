// The in-place CRC-32 that replay checks records with must agree with node:zlib's, which wrote them.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { crc32 } from 'node:zlib';
import { crc32Of } from '../../src/journal/crc32.js';
import { randomInt, seededRandom } from '../helpers/seeded-random.js';

test("crc32Of equals node:zlib's crc32 on every length from 0 to 300 bytes, at any offset", () => {
  const random = seededRandom(0xc3c32);
  const bytes = Buffer.alloc(1024);
  for (let index = 0; index < bytes.length; index++) bytes[index] = randomInt(random, 256);
  for (let length = 0; length <= 300; length++) {
    for (let trial = 0; trial < 8; trial++) {
      const start = randomInt(random, bytes.length - length);
      const end = start + length;
      assert.equal(crc32Of(bytes, start, end), crc32(bytes.subarray(start, end)), `length ${length} at ${start}`);
    }
  }
});

test('crc32Of gives the standard check value and tells one flipped bit', () => {
  const check = Buffer.from('123456789');
  // The CRC-32 check value of "123456789" (the catalogue of parametrised CRC algorithms).
  assert.equal(crc32Of(check, 0, check.length), 0xcbf43926);
  const record = Buffer.from('{"op":"pet","pet":{"id":1,"name":"Rex","categoryId":2,"status":"available"}}');
  const sum = crc32Of(record, 0, record.length);
  for (let bit = 0; bit < record.length * 8; bit++) {
    const flipped = Buffer.from(record);
    flipped[bit >> 3] = (flipped[bit >> 3] as number) ^ (1 << (bit & 7));
    assert.notEqual(crc32Of(flipped, 0, flipped.length), sum, `bit ${bit}`);
  }
});
