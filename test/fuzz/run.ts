// A long run of the HTTP API fuzzer (api-fuzzer.ts) against a service of its own:
//   npm run fuzz -- [--requests 100000] [--store embedded|postgres] [--limiter memory|redis] [--stop]
// It prints its seed first; FUZZ_SEED=<seed> replays a run. Without --stop it goes on after a failure
// and lists each kind of failure once at the end, with the run it was first seen in (replay that one
// with the same seed, --requests <run + 1> and --stop to have it shrunk). Exits 1 when anything failed.
import { randomInt } from 'node:crypto';
import { parseArgs } from 'node:util';
import { CONTRACT_DATABASE_VARIABLE, createTestDatabase, postgresSkipReason } from '../helpers/postgres.js';
import { CONTRACT_REDIS_VARIABLE, redisSkipReason, TEST_REDIS_URL } from '../helpers/redis.js';
import { startServer } from '../helpers/server.js';
import { fuzzApi } from './api-fuzzer.js';
import { FUZZ_AUTHORIZATIONS, fuzzServerOptions } from './fuzz-server.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '100000' },
    store: { type: 'string', default: 'embedded' },
    limiter: { type: 'string', default: 'memory' },
    stop: { type: 'boolean', default: false },
  },
});
const requests = Number(values.requests);
if (!Number.isSafeInteger(requests) || requests < 1)
  throw new Error(`--requests must be a whole number, not ${values.requests}`);
if (values.store !== 'embedded' && values.store !== 'postgres') throw new Error('--store must be embedded or postgres');
if (values.limiter !== 'memory' && values.limiter !== 'redis') throw new Error('--limiter must be memory or redis');
const seed = process.env.FUZZ_SEED === undefined ? randomInt(2 ** 31) : Number(process.env.FUZZ_SEED);
console.log(
  `fuzz seed ${seed}: ${requests} requests, ${values.store} store, ${values.limiter} limiter (replay with FUZZ_SEED=${seed})`,
);

let dropDatabase = async (): Promise<void> => {};
if (values.store === 'postgres') {
  const skip = await postgresSkipReason();
  if (skip !== undefined) throw new Error(skip);
  const database = await createTestDatabase();
  process.env[CONTRACT_DATABASE_VARIABLE] = database.url;
  dropDatabase = () => database.drop();
}
if (values.limiter === 'redis') {
  const skip = await redisSkipReason();
  if (skip !== undefined) throw new Error(skip);
  process.env[CONTRACT_REDIS_VARIABLE] = TEST_REDIS_URL;
}

const started = performance.now();
const server = await startServer(fuzzServerOptions());
let failed = true;
try {
  const report = await fuzzApi({
    origin: server.url,
    authorizations: FUZZ_AUTHORIZATIONS,
    requests,
    seed,
    mode: values.stop ? 'stop' : 'collect',
    progress: (line) => console.log(`${line} (${((performance.now() - started) / 1000).toFixed(0)} s)`),
  });
  console.log(
    `\n${report.requests} requests and ${report.readBacks} read-backs in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
  for (const [kind, count] of [...report.answers].sort()) console.log(`  ${kind.padEnd(40)} ${count}`);
  for (const finding of report.findings)
    console.log(
      `\nFAILED ${finding.property} (${finding.count}×, first in run ${finding.run}: FUZZ_SEED=${seed} --requests ${finding.run + 1} --stop)\n  ${finding.detail}\n  ${finding.request}`,
    );
  failed = report.findings.length > 0;
  console.log(failed ? `\n${report.findings.length} kinds of failure (seed ${seed})` : `\nno failure (seed ${seed})`);
} finally {
  await server.close();
  await dropDatabase();
}
process.exitCode = failed ? 1 : 0;
