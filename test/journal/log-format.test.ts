import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { crc32 } from 'node:zlib';
import { encodeRecord, parseRecord } from '../../src/journal/log-format.js';

test('a record is one line: byte length, crc32 in hex, payload, newline', () => {
  const payload = '{"id":1,"name":"Rex"}';
  const crc = crc32(payload).toString(16).padStart(8, '0');
  assert.equal(encodeRecord(payload), `${payload.length}:${crc}:${payload}\n`);
});

test('the length counts UTF-8 bytes, not UTF-16 code units', () => {
  const payload = '{"name":"Łajka 🐕"}';
  const line = encodeRecord(payload);
  assert.ok(line.startsWith(`${Buffer.byteLength(payload)}:`));
  const bytes = Buffer.from(line);
  const parsed = parseRecord(bytes, 0, bytes.length - 1);
  assert.notEqual(typeof parsed, 'string');
});

test('a checksum of fewer than 8 hex digits is zero-padded', () => {
  // Find a payload whose crc32 has a leading zero nibble, so the padding is exercised.
  let payload = '';
  for (let i = 0; ; i += 1) {
    payload = `{"n":${i}}`;
    if (crc32(payload) < 0x10000000) break;
  }
  const bytes = Buffer.from(encodeRecord(payload));
  assert.equal(bytes.toString().split(':')[1]!.length, 8);
  assert.notEqual(typeof parseRecord(bytes, 0, bytes.length - 1), 'string');
});

test('payloads that would break the framing are refused with TypeError', () => {
  assert.throws(() => encodeRecord(''), TypeError);
  assert.throws(() => encodeRecord('{"a":\n1}'), TypeError);
});

test('parseRecord names what is wrong with a damaged line', () => {
  const good = encodeRecord('{"id":7}');
  const cases: Array<[string, RegExp]> = [
    ['', /no valid length/],
    ['x:00000000:{}', /no valid length/],
    ['08:00000000:{"id":7}', /leading zero/],
    ['8', /malformed/],
    ['8:0000', /cut short/],
    ['8:0000000g:{"id":7}', /not hexadecimal/],
    ['8:00000000;{"id":7}', /malformed/],
    [good.replace('{"id":7}', '{"id":8}').trimEnd(), /checksum does not match/],
    [good.replace('{"id":7}', '{"id":77}').trimEnd(), /says 8 payload bytes but holds 9/],
    ['0:00000000:', /payload is empty/],
    ['12345678901:00000000:{}', /no valid length/],
  ];
  for (const [line, reason] of cases) {
    const bytes = Buffer.from(line);
    const parsed = parseRecord(bytes, 0, bytes.length);
    assert.equal(typeof parsed, 'string', line);
    assert.match(parsed as string, reason, line);
  }
});

test('parseRecord works on a line in the middle of a buffer', () => {
  const bytes = Buffer.from(`junk${encodeRecord('{"a":1}')}more`);
  const parsed = parseRecord(bytes, 4, bytes.indexOf(0x0a));
  assert.deepEqual(parsed, { payloadStart: 4 + '7:00000000:'.length, payloadEnd: bytes.indexOf(0x0a) });
});
