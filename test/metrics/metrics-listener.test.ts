// The metrics port's answers when a scrape cannot be collected: 503 while a backing server is away (a
// scrape that can be retried), 500 for anything else, each with a line saying why.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { request } from 'undici';
import { ApiError } from '../../src/core/errors.js';
import { listenMetrics, MetricsUnavailableError } from '../../src/metrics/metrics-listener.js';

async function scrapeFailingWith(error: Error): Promise<{ status: number; text: string }> {
  const source = { contentType: 'text/plain; version=0.0.4', text: () => Promise.reject(error) };
  const { url, server } = await listenMetrics(source, 0, '127.0.0.1');
  try {
    const answer = await request(url);
    return { status: answer.statusCode, text: await answer.body.text() };
  } finally {
    await new Promise((done) => server.close(done));
  }
}

test('a scrape while the database is away is a 503 naming it, as one of a worker that did not answer', async () => {
  const away = await scrapeFailingWith(new ApiError('unavailable', 'The database cannot be reached right now'));
  assert.equal(away.status, 503);
  assert.match(away.text, /^metrics could not be collected: The database cannot be reached right now/);
  assert.equal((await scrapeFailingWith(new MetricsUnavailableError('worker 12 did not answer'))).status, 503);
});

test('a scrape that fails for any other reason is a 500', async () => {
  assert.equal((await scrapeFailingWith(new Error('a bug'))).status, 500);
});
