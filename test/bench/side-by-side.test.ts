// The side-by-side check's parts that need neither wrk nor two services: reading wrk's report, and
// the refusal of a side-by-side run without the build to compare with.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { wrkCountOf } from '../../bench/side-by-side.js';

const REPORT = `Running 3s test @ http://127.0.0.1:18201/v1/pets/7
  1 threads and 25 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   470.12us  120.33us   4.80ms   90.12%
    Req/Sec    19.53k     1.02k   21.00k    70.00%
  58608 requests in 3.00s, 39.23MB read
Requests/sec:  19535.01
Transfer/sec:     13.07MB
`;

test("wrk's report gives the requests answered, and no refusal when it names none", () => {
  assert.deepEqual(wrkCountOf(REPORT), { requests: 58608, refused: 0 });
});

test("wrk's report of answers that were not 2xx or 3xx is read as refusals", () => {
  const refused = REPORT.replace('Requests/sec', '  Non-2xx or 3xx responses: 12\nRequests/sec');
  assert.deepEqual(wrkCountOf(refused), { requests: 58608, refused: 12 });
});

test('a report without a request count is an error, not a figure', () => {
  assert.throws(() => wrkCountOf('unable to connect to 127.0.0.1:1 Connection refused'), /no request count/);
});

test('side-by-side without --before is refused with exit code 2, naming the option', () => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/compare.ts', '--checks', 'side-by-side'], {
    encoding: 'utf8',
  });
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /side-by-side needs --before DIR/);
});
