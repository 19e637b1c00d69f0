// README "Rate limits" against a real server: plans, 429s, the ban and failed-authentication limits.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { call, startServer } from '../helpers/server.js';

const START_MS = Date.UTC(2027, 0, 1);
const FREE_KEY = 'free-plan-key-0123456789';

test('a free key gets 60 answers and then 429 rate_limited with the headers of the spec', async () => {
  const clock = new ManualClock(START_MS);
  const server = await startServer({ clock, keys: [{ key: FREE_KEY, plan: 'free' }] });
  const auth = { headers: { authorization: `Bearer ${FREE_KEY}` } };
  try {
    for (let request = 1; request <= 60; request++) {
      // Every outcome counts: some of the 60 are 404s and 400s.
      const path = request % 10 === 0 ? '/v1/nothing' : request % 7 === 0 ? '/v1/pets?limit=0' : '/v1/pets';
      const reply = await call(server, 'GET', path, auth);
      assert.equal(reply.headers['x-ratelimit-limit'], '60', `request ${request}`);
      assert.equal(reply.headers['x-ratelimit-remaining'], String(60 - request), `request ${request}`);
      assert.equal(reply.headers['ratelimit-policy'], '"minute";q=60;w=60, "day";q=1000;w=86400');
      assert.equal(reply.headers.ratelimit, `"minute";r=${60 - request};t=${request}`);
      assert.equal(reply.headers['x-ratelimit-reset'], String(START_MS / 1000 + request));
    }
    const refused = await call(server, 'GET', '/v1/pets', auth);
    assert.equal(refused.status, 429);
    assert.deepEqual(refused.json, {
      code: 'rate_limited',
      message: 'Too many requests; retry in 1 s (see Retry-After) and back off exponentially',
      status: 429,
    });
    assert.equal(refused.headers['retry-after'], '1');
    assert.equal(refused.headers['x-ratelimit-remaining'], '0');
    assert.equal(refused.headers['x-ratelimit-reset'], String(START_MS / 1000 + 60));

    clock.advance(1000);
    const again = await call(server, 'GET', '/v1/pets', auth);
    assert.equal(again.status, 200, 'one token refilled after a second');
    assert.equal(again.headers['x-ratelimit-remaining'], '0');
  } finally {
    await server.close();
  }
});

test('the 31st refusal within a minute starts a 15-minute ban that requests do not extend', async () => {
  const clock = new ManualClock(START_MS);
  const server = await startServer({ clock, keys: [{ key: FREE_KEY, plan: 'free' }] });
  const auth = { headers: { authorization: `Bearer ${FREE_KEY}` } };
  try {
    for (let request = 0; request < 60; request++) await call(server, 'GET', '/v1/pets', auth);
    for (let refusal = 1; refusal <= 31; refusal++) {
      const reply = await call(server, 'GET', '/v1/pets', auth);
      assert.equal((reply.json as { code: string }).code, 'rate_limited', `refusal ${refusal}`);
    }
    const banned = await call(server, 'GET', '/v1/pets', auth);
    assert.equal(banned.status, 429);
    assert.equal((banned.json as { code: string }).code, 'temporarily_banned');
    assert.equal(banned.headers['retry-after'], '900');
    assert.equal(banned.headers['x-ratelimit-remaining'], '0');
    assert.equal(banned.headers['x-ratelimit-limit'], '60');
    assert.equal(banned.headers['x-ratelimit-reset'], String(START_MS / 1000 + 900));

    clock.advance(600_000);
    const later = await call(server, 'GET', '/v1/pets', auth);
    assert.equal((later.json as { code: string }).code, 'temporarily_banned');
    assert.equal(later.headers['retry-after'], '300', 'the ban was not extended');
    clock.advance(300_000);
    assert.equal((await call(server, 'GET', '/v1/pets', auth)).status, 200, 'the ban ends on time');
  } finally {
    await server.close();
  }
});

test('401s carry the failed-auth bucket headers, and an address out of tokens is refused even with a valid key', async () => {
  const clock = new ManualClock(START_MS);
  const server = await startServer({ clock });
  try {
    for (let attempt = 1; attempt <= 30; attempt++) {
      const reply = await call(server, 'GET', '/v1/pets', {
        headers: { authorization: `Bearer wrong-key-${String(attempt).padStart(8, '0')}` },
      });
      assert.equal(reply.status, 401);
      assert.equal(reply.headers['x-ratelimit-limit'], '30');
      assert.equal(reply.headers['x-ratelimit-remaining'], String(30 - attempt));
      assert.equal(reply.headers['ratelimit-policy'], '"failed-auth";q=30;w=60');
      assert.match(String(reply.headers.ratelimit), /^"failed-auth";r=\d+;t=\d+$/);
    }
    const valid = await call(server, 'GET', '/v1/pets');
    assert.equal(valid.status, 429, 'a valid key from the same address is refused too');
    assert.deepEqual(valid.json, {
      code: 'rate_limited',
      message:
        'Too many failed authentications from this address; wait 2 s (see Retry-After): until then every request from it is refused before its key is looked at',
      status: 429,
    });
    assert.equal(valid.headers['retry-after'], '2');
    assert.equal(valid.headers['ratelimit-policy'], '"failed-auth";q=30;w=60', 'the address bucket, not the key');
    clock.advance(2000);
    assert.equal((await call(server, 'GET', '/v1/pets')).status, 200);
  } finally {
    await server.close();
  }
});

test('day buckets and bans survive a graceful restart; the saved state file is removed at start', async () => {
  const clock = new ManualClock(START_MS);
  const first = await startServer({
    clock,
    onDisk: true,
    keys: [{ key: FREE_KEY, plan: 'enterprise', perMinute: 1000, perDay: 5 }],
  });
  const dataDir = first.dataDir as string;
  const auth = { headers: { authorization: `Bearer ${FREE_KEY}` } };
  for (let request = 0; request < 3; request++) await call(first, 'GET', '/v1/pets', auth);
  await first.agent.close();
  await first.app.close();
  const second = await startServer({
    clock,
    dataDir,
    keys: [{ key: FREE_KEY, plan: 'enterprise', perMinute: 1000, perDay: 5 }],
  });
  try {
    const reply = await call(second, 'GET', '/v1/pets', auth);
    assert.equal(reply.headers['x-ratelimit-limit'], '5', 'the day bucket binds');
    assert.equal(reply.headers['x-ratelimit-remaining'], '1', 'three requests before the restart still count');
    const { existsSync } = await import('node:fs');
    assert.ok(!existsSync(`${dataDir}/limits.json`));
  } finally {
    await second.close();
    const { rm } = await import('node:fs/promises');
    await rm(dataDir, { recursive: true, force: true });
  }
});
