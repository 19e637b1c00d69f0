import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import { ApiError } from '../../src/core/errors.js';
import { pagingHeaders } from '../../src/http/list-answer.js';
import { CursorCodec } from '../../src/service/cursor-codec.js';

const codec = new CursorCodec(Buffer.alloc(32, 7));

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ApiError);
    assert.equal(error.code, 'invalid_cursor');
    return error.message;
  }
  throw new Error('accepted');
}

test('a cursor round-trips its last id for the listing and filter that issued it', () => {
  const cursor = codec.issue('pets', 'sold', 42);
  assert.match(cursor, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
  assert.equal(codec.read(cursor, 'pets', 'sold'), 42);
});

test('a cursor is refused for another listing or filter', () => {
  const cursor = codec.issue('pets', 'sold', 42);
  assert.match(
    refusal(() => codec.read(cursor, 'pets', '')),
    /another listing or filter/,
  );
  assert.match(
    refusal(() => codec.read(cursor, 'orders', 'sold')),
    /another listing or filter/,
  );
});

test('a signed cursor whose last id is not a plain id is refused, the first time and once cached', () => {
  // Only the secret's holder can sign such a payload; the codec still reads nothing from it but an id.
  const sign = (text: string): string => {
    const payload = Buffer.from(text).toString('base64url');
    const signature = createHmac('sha256', Buffer.alloc(32, 7)).update(payload).digest().subarray(0, 16);
    return `${payload}.${signature.toString('base64url')}`;
  };
  assert.equal(codec.read(sign('pets||7'), 'pets', ''), 7);
  for (const text of ['pets||', 'pets||07', 'pets||x', 'pets||-1', 'pets||1e3', 'pets', 'pets||12345678901234567']) {
    for (let attempt = 0; attempt < 2; attempt++) {
      assert.match(
        refusal(() => codec.read(sign(text), 'pets', '')),
        /another listing or filter/,
        text,
      );
    }
  }
});

test('a forged, truncated or foreign cursor is refused', () => {
  const cursor = codec.issue('pets', '', 42);
  const [payload] = cursor.split('.');
  const forged = `${Buffer.from('pets||999').toString('base64url')}.${cursor.split('.')[1]}`;
  const foreign = new CursorCodec(Buffer.alloc(32, 8)).issue('pets', '', 42);
  for (const bad of [forged, foreign, payload as string, `${cursor}x`, '', '.', 'a.b', cursor.slice(1)]) {
    assert.match(
      refusal(() => codec.read(bad, 'pets', '')),
      /not issued by this service/,
      bad,
    );
  }
});

test('a refused cursor is named in the words of the domain: the cursor, not a query parameter', () => {
  const cursor = codec.issue('pets', 'sold', 42);
  for (const message of [
    refusal(() => codec.read(cursor, 'orders', 'sold')),
    refusal(() => codec.read('x', 'pets', '')),
  ]) {
    assert.match(message, /^The cursor (was issued for another listing or filter|was not issued by this service); /);
    assert.doesNotMatch(message, /query|parameter/i);
  }
});

test('a short secret is a programmer error', () => {
  assert.throws(() => new CursorCodec(Buffer.alloc(8)), TypeError);
});

test('paging headers carry Link and X-Next only when a next page exists', () => {
  assert.deepEqual(pagingHeaders(undefined, 3), { 'x-total-count': '3' });
  assert.deepEqual(pagingHeaders('/v1/pets?limit=1&cursor=c', 3), {
    link: '</v1/pets?limit=1&cursor=c>; rel="next"',
    'x-next': '/v1/pets?limit=1&cursor=c',
    'x-total-count': '3',
  });
});

test('cached cursors are the same strings and are still checked against listing and filter', () => {
  const local = new CursorCodec(Buffer.alloc(32, 9));
  const first = local.issue('pets', 'sold', 7);
  assert.equal(local.issue('pets', 'sold', 7), first);
  assert.equal(local.read(first, 'pets', 'sold'), 7);
  assert.equal(local.read(first, 'pets', 'sold'), 7, 'from the cache');
  assert.match(
    refusal(() => local.read(first, 'pets', 'pending')),
    /another listing or filter/,
  );
  for (let id = 0; id < 5000; id++) local.read(local.issue('pets', '', id), 'pets', '');
  assert.equal(local.read(first, 'pets', 'sold'), 7, 'still valid once evicted');
});

test("other spellings of an issued cursor's signature are refused: unused trailing bits, padding, stray characters", () => {
  const cursor = codec.issue('pets', '', 7);
  const [payload, signature] = cursor.split('.') as [string, string];
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  // The 22nd character carries 2 bits of the 128-bit signature and 4 unused ones: its neighbours decode alike.
  const last = alphabet.indexOf(signature.at(-1) as string);
  const sameBits = alphabet[last ^ 1] as string;
  assert.deepEqual(
    Buffer.from(`${signature.slice(0, -1)}${sameBits}`, 'base64url'),
    Buffer.from(signature, 'base64url'),
    'the spelling decodes to the same bytes',
  );
  for (const bad of [
    `${payload}.${signature.slice(0, -1)}${sameBits}`,
    `${cursor}=`,
    `${cursor}==`,
    `${payload}.!${signature}`,
    `${payload}.${signature.slice(0, 5)} ${signature.slice(5)}`,
  ]) {
    assert.match(
      refusal(() => codec.read(bad, 'pets', '')),
      /not issued by this service/,
      bad,
    );
  }
  assert.equal(codec.read(cursor, 'pets', ''), 7);
});
