import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../src/core/errors.js';
import { validateNewPet } from '../../src/pets/validate.js';

function faultOf(body: unknown): ApiError {
  try {
    validateNewPet(body);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error(`accepted ${JSON.stringify(body)}`);
}

test('a valid NewPet is returned as is', () => {
  assert.deepEqual(validateNewPet({ name: ' Rex ', categoryId: 3 }), { name: ' Rex ', categoryId: 3 });
  assert.deepEqual(validateNewPet({ name: 'a', categoryId: 9007199254740991, status: 'sold' }), {
    name: 'a',
    categoryId: 9007199254740991,
    status: 'sold',
  });
  assert.equal(
    validateNewPet({ name: '😀'.repeat(200), categoryId: 1 }).name.length,
    400,
    '200 code points, 400 UTF-16 units',
  );
});

test('categoryId must be an integer from 1 to 2^53 − 1, named with its rule', () => {
  for (const categoryId of [3.5, '3', true, 0, -0, -1, 9007199254740992, Infinity, null]) {
    const error = faultOf({ name: 'a', categoryId });
    assert.equal(error.code, 'invalid_body');
    assert.equal(error.message, '"categoryId" must be an integer from 1 to 9007199254740991', String(categoryId));
    assert.deepEqual(error.details, [{ path: '/categoryId', message: error.message }]);
  }
});

test('name must be 1 to 200 code points and not all white space', () => {
  for (const name of ['', ' ', '\t\n\u00a0\ufeff\u2028', 'x'.repeat(201), '😀'.repeat(201), 5]) {
    assert.match(faultOf({ name, categoryId: 1 }).message, /^"name" must be a string of 1 to 200 characters/);
  }
});

test('a lone surrogate in name is refused', () => {
  assert.match(faultOf({ name: 'a\ud800', categoryId: 1 }).message, /well-formed Unicode/);
});

test('status must be one of the three states', () => {
  assert.equal(
    faultOf({ name: 'a', categoryId: 1, status: 'lost' }).message,
    '"status" must be one of "available", "pending", "sold"',
  );
});

test('unknown properties, id, __proto__ and constructor are refused by name', () => {
  for (const key of ['id', '__proto__', 'constructor', 'prototype', 'extra']) {
    const body = JSON.parse(`{"name":"a","categoryId":1,${JSON.stringify(key)}:1}`) as unknown;
    const error = faultOf(body);
    assert.match(error.message, new RegExp(`^"${key}" is not a property of NewPet`), key);
  }
});

test('missing fields and a non-object body are named', () => {
  const missing = faultOf({});
  assert.deepEqual(
    missing.details?.map((detail) => detail.path),
    ['/name', '/categoryId'],
  );
  assert.match(missing.message, /"name" is required/);
  for (const body of [[], null, 'x', 3])
    assert.equal(faultOf(body).message, 'The request body must be a JSON object (NewPet)');
});

test('every fault is listed in details', () => {
  const error = faultOf({ name: '', categoryId: 'x', status: 1, extra: true });
  assert.deepEqual(error.details?.map((detail) => detail.path).sort(), ['/categoryId', '/extra', '/name', '/status']);
});
