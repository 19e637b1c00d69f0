// The timeouts as library options: each within what a Node timer holds, and the headers' timeout never
// past the whole request's, which node:http would refuse with a message of its own.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolveSettings } from '../../src/config/settings.js';

test('a request timeout shorter than the headers default takes the headers timeout down with it', () => {
  assert.equal(resolveSettings({}).headersTimeoutMs, 10_000);
  assert.equal(resolveSettings({ requestTimeoutMs: 4_000 }).headersTimeoutMs, 4_000);
  assert.equal(resolveSettings({ requestTimeoutMs: 60_000 }).headersTimeoutMs, 10_000);
  assert.equal(resolveSettings({ requestTimeoutMs: 4_000, headersTimeoutMs: 3_000 }).headersTimeoutMs, 3_000);
});

test('a headers timeout set longer than the request timeout is refused, naming both', () => {
  assert.throws(() => resolveSettings({ headersTimeoutMs: 40_000 }), {
    name: 'TypeError',
    message: /^option headersTimeoutMs must not be longer than requestTimeoutMs/,
  });
});

test('a timeout past 2^31 − 1 ms is refused, since a Node timer would fire at once', () => {
  for (const name of ['keepAliveTimeoutMs', 'sendTimeoutMs', 'fsyncIntervalMs', 'webhookTimeoutMs'] as const) {
    assert.throws(() => resolveSettings({ [name]: 2 ** 31 }), {
      name: 'TypeError',
      message: new RegExp(`^option ${name} `),
    });
    assert.equal(resolveSettings({ [name]: 2 ** 31 - 1 })[name], 2 ** 31 - 1);
  }
});
