// Whether a JSON number is an integer is decided by the exact value of its literal (docs/api.md
// "Pets"), not by the double JSON.parse rounds it to.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isExactInteger, parseJsonText, roundsToFalseInteger } from '../../src/http/json-text.js';

test('integer spellings are exact integers: 3, 3.0, 3e0, 30e-1, 0.3e1, -0, 0e-9, 1E+2', () => {
  for (const literal of ['3', '3.0', '3e0', '30e-1', '0.3e1', '-0', '0e-9', '1E+2', '9007199254740991', '100.000'])
    assert.equal(isExactInteger(literal), true, literal);
});

test('fractions are not, however many digits they carry: 3.5, 1e-1, 1.0000000000000001, 0.99999999999999999999', () => {
  for (const literal of ['3.5', '1e-1', '1.0000000000000001', '0.99999999999999999999', '4503599627370496.5', '5e-400'])
    assert.equal(isExactInteger(literal), false, literal);
});

test('only literals that JSON.parse rounds onto an integer are false integers', () => {
  assert.equal(roundsToFalseInteger('1.0000000000000001'), true);
  assert.equal(roundsToFalseInteger('9007199254740991.4'), true);
  assert.equal(roundsToFalseInteger('5e-400'), true, 'rounds to 0');
  assert.equal(roundsToFalseInteger('3.5'), false, 'JSON.parse keeps it a fraction');
  assert.equal(roundsToFalseInteger('3.0'), false, 'an integer in truth');
  assert.equal(roundsToFalseInteger('1e400'), false, 'Infinity is no integer either way');
});

test('a body with a false integer reads it as a non-integer; everything else is as JSON.parse reads it', () => {
  const parsed = parseJsonText(
    '{"name":"1.0000000000000001","categoryId":1.0000000000000001,"n":[12345678901234567]}',
  ) as {
    name: string;
    categoryId: number;
    n: number[];
  };
  assert.equal(parsed.name, '1.0000000000000001', 'a string that looks like a number is untouched');
  assert.equal(Number.isInteger(parsed.categoryId), false);
  assert.ok(Number.isInteger(parsed.n[0]), 'a long integer literal is an integer');
  assert.deepEqual(parseJsonText('{"name":"Rex","categoryId":3.0}'), { name: 'Rex', categoryId: 3 });
  assert.deepEqual(parseJsonText('{"a":"\\"12345678901234567.5"}'), { a: '"12345678901234567.5' }, 'escaped quotes');
});
