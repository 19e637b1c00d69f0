// The served OpenAPI document through two linters the ecosystem uses: Spectral's `spectral:oas` ruleset
// (recommended rules, which also check every example against its schema) and Redocly's `recommended`
// config. Both must report nothing: no error, no warning.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import spectralCore from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { call, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let text: string;
before(async () => {
  server = await startServer();
  text = (await call(server, 'GET', '/v1/openapi.json')).text;
});
after(() => server.close());

test('Spectral (spectral:oas, recommended) finds nothing to report', async () => {
  const spectral = new spectralCore.Spectral();
  spectral.setRuleset({ extends: [[oas, 'recommended']] } as Parameters<typeof spectral.setRuleset>[0]);
  const results = await spectral.run(new spectralCore.Document(text, spectralParsers.Json));
  assert.deepEqual(
    results.map((result) => `${result.code} at ${result.path.join('.')}: ${result.message}`),
    [],
  );
});

test('Redocly (recommended) finds nothing to report', async () => {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source: text, absoluteRef: 'openapi.json', config });
  assert.deepEqual(
    problems.map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message}`),
    [],
  );
});

test('every string enum says its type, so generated clients type it', () => {
  const untyped: string[] = [];
  const walk = (value: unknown, path: string): void => {
    if (value === null || typeof value !== 'object') return;
    const object = value as Record<string, unknown>;
    if (Array.isArray(object.enum) && object.type === undefined) untyped.push(path);
    for (const [key, item] of Object.entries(object)) walk(item, `${path}.${key}`);
  };
  walk(JSON.parse(text), '$');
  assert.deepEqual(untyped, []);
});
