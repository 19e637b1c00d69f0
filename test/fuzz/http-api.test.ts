// The HTTP API under generated requests (api-fuzzer.ts), driven by the OpenAPI document it serves: a
// fixed seed unless FUZZ_SEED says otherwise, a few thousand requests. On the embedded store here, and
// on PostgreSQL and Redis in test/store/postgres-contract.test.ts. Longer runs: `npm run fuzz`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, createPet, startServer } from '../helpers/server.js';
import { type Answer, answerProblems } from './answer-check.js';
import { fuzzApi } from './api-fuzzer.js';
import { FUZZ_AUTHORIZATIONS, fuzzServerOptions } from './fuzz-server.js';
import { type JsonSchema, readDocument } from './openapi-document.js';
import { SchemaChecker } from './schema-check.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const REQUESTS = 1000;

test('generated requests for every operation of the document: never a 5xx or a hang, every answer as the document describes it, every acknowledged change read back', async (t) => {
  const server = await startServer(fuzzServerOptions());
  try {
    const report = await fuzzApi({
      origin: server.url,
      authorizations: FUZZ_AUTHORIZATIONS,
      requests: REQUESTS,
      seed: SEED,
      mode: 'stop',
    });
    t.diagnostic(`seed ${SEED}: ${[...report.answers].map(([kind, count]) => `${kind} ×${count}`).join(', ')}`);
    const succeeded = new Set(
      [...report.answers.keys()].filter((kind) => / 2\d\d$/.test(kind)).map((kind) => kind.split(' ')[0]),
    );
    const operations = new Set([...report.answers.keys()].map((kind) => kind.split(' ')[0]));
    assert.ok(
      succeeded.size >= operations.size / 2,
      `most operations succeeded at least once: ${[...succeeded].join(', ')}`,
    );
    assert.ok(report.readBacks > 0, 'some changes were acknowledged and read back');
  } finally {
    await server.close();
  }
});

test("the fuzzer's checks refuse a 5xx, an undescribed status, a body off its schema, a missing request id", async () => {
  const server = await startServer();
  try {
    const document = readDocument((await call(server, 'GET', '/v1/openapi.json')).json as JsonSchema);
    const checker = new SchemaChecker(document.root);
    const pet = await createPet(server, { name: 'Rex', categoryId: 1 });
    const request = { method: 'GET', path: `/v1/pets/${pet.id}`, headers: {}, body: undefined };
    const real = await call(server, 'GET', request.path);
    const answer: Answer = { status: real.status, headers: real.headers, body: Buffer.from(real.text) };
    assert.deepEqual(answerProblems(document, checker, request, answer), [], 'a real answer keeps every promise');
    const broken = (changes: Partial<Answer>): string[] =>
      answerProblems(document, checker, request, { ...answer, ...changes }).map((problem) => problem.property);
    assert.deepEqual(broken({ status: 500 }), ['never a 5xx', 'the body the document describes']);
    assert.deepEqual(broken({ status: 418 }), ['a status the document describes']);
    assert.deepEqual(broken({ body: Buffer.from(JSON.stringify({ ...pet, status: 'lost' })) }), [
      'the body the document describes',
    ]);
    assert.deepEqual(broken({ body: Buffer.from('<html>') }), ['the body the document describes']);
    assert.deepEqual(broken({ headers: { ...answer.headers, 'content-type': 'text/html' } }), [
      'the body the document describes',
    ]);
    assert.deepEqual(broken({ headers: { ...answer.headers, 'x-request-id': undefined } }), [
      'a request id on every answer',
    ]);
    assert.deepEqual(broken({ headers: { ...answer.headers, 'x-ratelimit-remaining': 'many' } }), [
      'the headers the document describes',
    ]);
  } finally {
    await server.close();
  }
});
