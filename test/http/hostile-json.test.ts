// Hostile JSON on POST /v1/pets (README "Errors" and "How the API behaves"): every malformed, odd or
// malicious body gets the documented 400, never a 500 or a hang; the store is unchanged and the next
// good request is served; keys such as `__proto__` pollute nothing.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { call, type Reply, startServer, type TestServer } from '../helpers/server.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const VALID = '{"name":"Rex","categoryId":1}';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.close());

function post(body: string | Buffer, contentType = 'application/json'): Promise<Reply> {
  return call(server, 'POST', '/v1/pets', { body, headers: { 'content-type': contentType } });
}

/** The number of animals, read with a plain GET that must itself be served. */
async function petCount(): Promise<number> {
  const reply = await call(server, 'GET', '/v1/pets?limit=1');
  assert.equal(reply.status, 200, 'the next good request is served');
  return Number(reply.headers['x-total-count']);
}

/** Asserts the contract's Error answer of an API request: status, code, content type and headers. */
function assertError(
  reply: Reply,
  status: number,
  code: string,
  label: string,
): { message: string; details?: Array<{ path: string; message: string }> } {
  assert.equal(reply.status, status, `${label}: ${reply.text}`);
  assert.equal(reply.headers['content-type'], JSON_TYPE, label);
  assert.match((reply.headers['x-request-id'] as string) ?? '', REQUEST_ID, label);
  assert.ok(reply.headers['x-ratelimit-limit'] !== undefined, `${label}: rate-limit headers on every API answer`);
  const body = reply.json as {
    code: string;
    message: string;
    status: number;
    details?: Array<{ path: string; message: string }>;
  };
  assert.equal(body.code, code, label);
  assert.equal(body.status, status, label);
  assert.ok(typeof body.message === 'string' && body.message.length > 0, label);
  // No stack trace and no internal path, ever (README "Errors").
  assert.doesNotMatch(reply.text, /\n\s+at |node:internal|\/work\/|\.ts:\d/, label);
  return body;
}

/** Sends each body, expects `status`/`code` for all of them, and the store unchanged afterwards. */
async function refusedWithoutChange(bodies: Array<string | Buffer>, status: number, code: string): Promise<Reply[]> {
  const before = await petCount();
  const replies: Reply[] = [];
  for (const body of bodies) {
    const reply = await post(body);
    assertError(
      reply,
      status,
      code,
      JSON.stringify((typeof body === 'string' ? body : body.toString('latin1')).slice(0, 80)),
    );
    replies.push(reply);
  }
  assert.equal(await petCount(), before, 'the store is unchanged');
  return replies;
}

/** Creates a pet from raw JSON text and returns the 201 answer's Pet. */
async function created(body: string | Buffer): Promise<Record<string, unknown>> {
  const reply = await post(body);
  assert.equal(reply.status, 201, `${String(body).slice(0, 80)}: ${reply.text}`);
  assert.equal(reply.headers['content-type'], JSON_TYPE);
  const pet = reply.json as Record<string, unknown>;
  assert.equal(reply.headers.location, `/v1/pets/${String(pet.id)}`);
  return pet;
}

const nestedArrays = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

test('malformed JSON is 400 invalid_json naming the body', async () => {
  const replies = await refusedWithoutChange(
    [
      '{',
      '}',
      '{"name":"Rex","categoryId":1',
      '{"name":"Rex","categoryId":1,}',
      "{'name':'Rex','categoryId':1}",
      '{name:"Rex",categoryId:1}',
      '{"name":"Rex" "categoryId":1}',
      '{"name":"Rex","categoryId":}',
      '{"name":"Re\tx","categoryId":1}',
      '{"name":"Rex","categoryId":NaN}',
      '{"name":"Rex","categoryId":Infinity}',
      '{"name":"Rex","categoryId":0x10}',
      '{"name":"Rex","categoryId":01}',
      '{"name":"Rex","categoryId":+1}',
      '{"name":"Rex","categoryId":.5}',
      '{"name":"Rex","categoryId":1.}',
      '{"name":"Rex\\x41","categoryId":1}',
      '{"name":"\\u12","categoryId":1}',
      '/* a comment */ {"name":"Rex","categoryId":1}',
      'undefined',
      'null null',
      '"unterminated',
    ],
    400,
    'invalid_json',
  );
  for (const reply of replies) assert.match((reply.json as { message: string }).message, /request body/);
});

test('trailing garbage after a valid JSON value is 400 invalid_json', async () => {
  await refusedWithoutChange(
    [
      `${VALID}x`,
      `${VALID}${VALID}`,
      `${VALID},`,
      `${VALID}]`,
      `${VALID}\u0000`,
      `${VALID} // comment`,
      `${VALID}\u00a0`,
    ],
    400,
    'invalid_json',
  );
});

test('white space around a valid JSON value is allowed (201)', async () => {
  const pet = await created(` \t\r\n${VALID}\r\n \t`);
  assert.equal(pet.name, 'Rex');
});

test('a UTF-8 BOM before valid JSON is 400 invalid_json: a BOM is not JSON', async () => {
  const bom = Buffer.from([0xef, 0xbb, 0xbf]);
  await refusedWithoutChange(
    [Buffer.concat([bom, Buffer.from(VALID)]), bom, Buffer.concat([Buffer.from(VALID), bom])],
    400,
    'invalid_json',
  );
});

test('bytes that are not UTF-8 are 400 invalid_json, never decoded with replacement characters', async () => {
  const withName = (bytes: number[]): Buffer =>
    Buffer.concat([Buffer.from('{"name":"'), Buffer.from(bytes), Buffer.from('","categoryId":1}')]);
  await refusedWithoutChange(
    [
      withName([0xff]), // never valid in UTF-8
      withName([0xe9]), // Latin-1 "é"
      withName([0xc0, 0xaf]), // overlong "/"
      withName([0xed, 0xa0, 0x80]), // a surrogate encoded as UTF-8 (CESU-8)
      withName([0xf4, 0x90, 0x80, 0x80]), // beyond U+10FFFF
      withName([0xe2, 0x82]), // a truncated sequence
      Buffer.concat([Buffer.from(VALID.slice(0, -1)), Buffer.from([0xe2, 0x82])]),
      Buffer.from(`\ufeff${VALID}`, 'utf16le'), // UTF-16 with its BOM
    ],
    400,
    'invalid_json',
  );
  const after = await call(server, 'GET', '/v1/pets');
  assert.ok(!after.text.includes('\ufffd'), 'no replacement character was stored');
});

test('10,000 nested arrays inside a property are 400 invalid_body, not a 500 or a crash', async () => {
  const deep = nestedArrays(10_000);
  assert.ok(Buffer.byteLength(deep) < 65_536);
  const [extra, inName, inStatus] = await refusedWithoutChange(
    [
      `{"name":"Rex","categoryId":1,"toys":${deep}}`,
      `{"name":${deep},"categoryId":1}`,
      `{"name":"Rex","categoryId":1,"status":${deep}}`,
    ],
    400,
    'invalid_body',
  );
  assert.match((extra!.json as { message: string }).message, /"toys" is not a property of NewPet/);
  assert.match((inName!.json as { message: string }).message, /"name" must be/);
  assert.match((inStatus!.json as { message: string }).message, /"status" must be/);
});

test('nesting as deep as 64 KiB allows, of arrays or objects, is refused with a 400', async () => {
  const arrays = nestedArrays(32_000);
  const objects = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
  assert.ok(Buffer.byteLength(arrays) <= 65_536 && Buffer.byteLength(objects) <= 65_536);
  await refusedWithoutChange([arrays, objects, `{"name":"Rex","categoryId":1,"x":${objects}}`], 400, 'invalid_body');
  // Unterminated, it is not JSON at all.
  await refusedWithoutChange(
    ['['.repeat(60_000), `{"name":"Rex","categoryId":1,"x":${'{"a":'.repeat(10_000)}`],
    400,
    'invalid_json',
  );
});

test('a deeply nested value overwritten by a later duplicate member is harmless (201)', async () => {
  const pet = await created(`{"name":${nestedArrays(10_000)},"name":"Deep","categoryId":1}`);
  assert.equal(pet.name, 'Deep');
});

test('JSON bodies that are not objects are 400 invalid_body', async () => {
  const replies = await refusedWithoutChange(
    ['null', 'true', '0', '"Rex"', '[]', `[${VALID}]`, '1e400'],
    400,
    'invalid_body',
  );
  for (const reply of replies) assert.match((reply.json as { message: string }).message, /JSON object/);
});

test('1e400 and other numbers beyond the double range are 400 invalid_body naming categoryId', async () => {
  const replies = await refusedWithoutChange(
    [
      '{"name":"Rex","categoryId":1e400}',
      '{"name":"Rex","categoryId":-1e400}',
      '{"name":"Rex","categoryId":1e-400}',
      `{"name":"Rex","categoryId":1${'0'.repeat(400)}}`,
      `{"name":"Rex","categoryId":1${'0'.repeat(30_000)}}`,
      '{"name":"Rex","categoryId":1,"weight":1e400}',
    ],
    400,
    'invalid_body',
  );
  for (const reply of replies.slice(0, 5)) {
    const body = reply.json as { message: string; details: Array<{ path: string }> };
    assert.match(body.message, /"categoryId" must be an integer from 1 to 9007199254740991/);
    assert.deepEqual(
      body.details.map((detail) => detail.path),
      ['/categoryId'],
    );
  }
});

test('-0 is not a categoryId from 1 (400 invalid_body), nor a status', async () => {
  await refusedWithoutChange(
    [
      '{"name":"Rex","categoryId":-0}',
      '{"name":"Rex","categoryId":-0.0}',
      '{"name":"Rex","categoryId":-0e0}',
      '{"name":"Rex","categoryId":0}',
      '{"name":"Rex","categoryId":1,"status":-0}',
      '{"name":-0,"categoryId":1}',
    ],
    400,
    'invalid_body',
  );
});

test('integers past 2^53 − 1 are 400 invalid_body; 2^53 − 1 itself is stored exactly', async () => {
  await refusedWithoutChange(
    [
      '{"name":"Rex","categoryId":9007199254740992}',
      '{"name":"Rex","categoryId":9007199254740993}',
      '{"name":"Rex","categoryId":18446744073709551616}',
      '{"name":"Rex","categoryId":-9007199254740991}',
      '{"name":"Rex","categoryId":9007199254740991.5}',
    ],
    400,
    'invalid_body',
  );
  const reply = await post('{"name":"Max","categoryId":9007199254740991}');
  assert.equal(reply.status, 201);
  assert.match(reply.text, /"categoryId":9007199254740991,/);
});

test('a categoryId whose literal is no integer is refused even where JSON.parse would round it to one', async () => {
  const replies = await refusedWithoutChange(
    [
      '{"name":"Rex","categoryId":1.0000000000000001}',
      '{"name":"Rex","categoryId":0.99999999999999999999}',
      '{"name":"Rex","categoryId":4503599627370496.5}',
      '{"name":"Rex","categoryId":9007199254740990.9}',
    ],
    400,
    'invalid_body',
  );
  for (const reply of replies) assert.match(reply.text, /categoryId/);
  assert.equal((await created('{"name":"Rex","categoryId":30e-1}')).categoryId, 3, '30e-1 is exactly 3');
  assert.equal((await created('{"name":"Rex","categoryId":4503599627370496.0000}')).categoryId, 4503599627370496);
});

test('lone surrogates escaped in name are 400 invalid_body naming name', async () => {
  const replies = await refusedWithoutChange(
    [
      '{"name":"\\ud800","categoryId":1}',
      '{"name":"\\udfff","categoryId":1}',
      '{"name":"Rex\\ud83d","categoryId":1}',
      '{"name":"\\udc36\\ud83d","categoryId":1}',
      '{"name":"a\\ud800b","categoryId":1}',
    ],
    400,
    'invalid_body',
  );
  for (const reply of replies) {
    const body = reply.json as { message: string; details: Array<{ path: string }> };
    assert.match(body.message, /"name"/);
    assert.deepEqual(
      body.details.map((detail) => detail.path),
      ['/name'],
    );
  }
  // The whole listing is still well-formed UTF-8 that a strict decoder accepts.
  const list = await call(server, 'GET', '/v1/pets?limit=100');
  assert.doesNotThrow(() => new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(list.text)));
  assert.ok(list.text.isWellFormed());
});

test('an escaped surrogate pair is one code point, stored and served back as sent', async () => {
  const pet = await created('{"name":"\\ud83d\\udc36 Rex","categoryId":1}');
  assert.equal(pet.name, '\u{1f436} Rex');
  const read = await call(server, 'GET', `/v1/pets/${String(pet.id)}`);
  assert.equal((read.json as { name: string }).name, '\u{1f436} Rex');
});

test('name length counts code points: 200 astral characters are accepted, 201 refused', async () => {
  const pet = await created(JSON.stringify({ name: '\u{1f436}'.repeat(200), categoryId: 1 }));
  assert.equal([...String(pet.name)].length, 200);
  await refusedWithoutChange([JSON.stringify({ name: '\u{1f436}'.repeat(201), categoryId: 1 })], 400, 'invalid_body');
});

test('escaped control characters in name are stored exactly as sent', async () => {
  const pet = await created('{"name":"R\\u0000e\\u001fx\\n","categoryId":1}');
  assert.equal(pet.name, 'R\u0000e\u001fx\n');
});

test('duplicate members: the last one wins (201), for better and for worse', async () => {
  const renamed = await created('{"name":"First","categoryId":1,"name":"Last"}');
  assert.equal(renamed.name, 'Last');
  const fixed = await created('{"name":"Rex","categoryId":"x","status":"lost","categoryId":2,"status":"sold"}');
  assert.deepEqual({ categoryId: fixed.categoryId, status: fixed.status }, { categoryId: 2, status: 'sold' });
  const [broken] = await refusedWithoutChange(
    ['{"name":"Rex","categoryId":1,"status":"sold","status":"lost"}'],
    400,
    'invalid_body',
  );
  assert.match((broken!.json as { message: string }).message, /"status" must be one of/);
});

test('__proto__, constructor and prototype members are refused with invalid_body naming them', async () => {
  const cases: Array<[string, string]> = [
    ['{"name":"Rex","categoryId":1,"__proto__":{"polluted":"yes"}}', '__proto__'],
    ['{"__proto__":{"name":"Rex","categoryId":1}}', '__proto__'],
    ['{"name":"Rex","categoryId":1,"__proto__":{"status":"sold","isAdmin":true}}', '__proto__'],
    ['{"name":"Rex","categoryId":1,"__proto__":null}', '__proto__'],
    ['{"name":"Rex","categoryId":1,"constructor":{"prototype":{"polluted":"yes"}}}', 'constructor'],
    ['{"name":"Rex","categoryId":1,"prototype":{"polluted":"yes"}}', 'prototype'],
    ['{"name":"Rex","categoryId":1,"toString":"x","valueOf":1,"hasOwnProperty":2}', 'toString'],
    ['{"name":"Rex","categoryId":1,"id":7}', 'id'],
  ];
  const replies = await refusedWithoutChange(
    cases.map(([body]) => body),
    400,
    'invalid_body',
  );
  replies.forEach((reply, index) => {
    const [, name] = cases[index] as [string, string];
    const body = reply.json as { message: string; details: Array<{ path: string }> };
    assert.match(body.message, new RegExp(`"${name}" is not a property of NewPet`), name);
    assert.ok(
      body.details.some((detail) => detail.path === `/${name}`),
      name,
    );
  });
});

test('after every hostile key, Object.prototype is not polluted and new pets carry only their four fields', async () => {
  const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();
  for (const body of [
    '{"__proto__":{"polluted":"yes"},"name":"Rex","categoryId":1}',
    '{"constructor":{"prototype":{"polluted":"yes"}},"name":"Rex","categoryId":1}',
    '{"name":"Rex","categoryId":1,"__proto__":{"__proto__":{"polluted":"yes"}}}',
  ])
    assert.equal((await post(body)).status, 400, body);
  // A valid body with an Idempotency-Key goes through canonicalisation too; nothing may leak from it.
  const keyed = await call(server, 'POST', '/v1/pets', {
    body: '{"name":"Clean","categoryId":1,"__proto__":{"polluted":"yes"}}',
    headers: { 'content-type': 'application/json', 'idempotency-key': 'hostile-json-proto' },
  });
  assert.equal(keyed.status, 400);
  assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), prototypeKeys);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(({} as Record<string, unknown>).isAdmin, undefined);
  const pet = await created('{"name":"Clean","categoryId":1}');
  assert.deepEqual(Object.keys(pet), ['id', 'name', 'categoryId', 'status']);
  assert.equal(pet.status, 'available');
});
