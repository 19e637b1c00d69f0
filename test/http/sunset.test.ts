// README "How the API behaves": getPet answers 410 from its sunset date on, once authenticated and within limits.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { call, createPet, startServer } from '../helpers/server.js';

const SUNSET_MS = Date.UTC(2030, 11, 5);

test('getPet works until the last millisecond before the sunset and is 410 gone from then on', async () => {
  const clock = new ManualClock(SUNSET_MS - 1);
  const server = await startServer({ clock });
  try {
    const pet = await createPet(server, { name: 'Old', categoryId: 1 });
    assert.equal((await call(server, 'GET', `/v1/pets/${pet.id}`)).status, 200);
    clock.advance(1);
    for (const path of [`/v1/pets/${pet.id}`, '/v1/pets/abc', '/v1/pets/999']) {
      const reply = await call(server, 'GET', path);
      assert.equal(reply.status, 410, path);
      const body = reply.json as { code: string; message: string; status: number };
      assert.equal(body.code, 'gone');
      assert.equal(body.status, 410);
      assert.match(body.message, /GET \/v1\/pets with a status filter/);
      assert.equal(reply.headers.sunset, 'Thu, 05 Dec 2030 00:00:00 GMT');
      assert.equal(reply.headers.link, '</v1/pets>; rel="successor-version"');
    }
    assert.equal(
      (await call(server, 'GET', '/v1/pets/1', { headers: { authorization: '' } })).status,
      401,
      'authentication comes first',
    );
    assert.equal((await call(server, 'GET', '/v1/pets')).status, 200, 'the successor keeps working');
  } finally {
    await server.close();
  }
});

test('the deprecation and sunset dates are configurable', async () => {
  const server = await startServer({ deprecatedAt: Date.UTC(2027, 0, 1), sunsetAt: Date.UTC(2031, 5, 1) });
  try {
    const reply = await call(server, 'GET', '/v1/pets/1');
    assert.equal(reply.headers.deprecation, `@${Date.UTC(2027, 0, 1) / 1000}`);
    assert.equal(reply.headers.sunset, 'Sun, 01 Jun 2031 00:00:00 GMT');
  } finally {
    await server.close();
  }
});
