// `animal-store serve`'s flags and ANIMAL_STORE_* variables as createAnimalStore options, without a
// process: the rate limiter's five (README "Rate limits", "configurable") go into the `limits` option.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inCommandLineTerms, SERVE_HELP, serveOptions } from '../../src/cli/serve.js';
import { SETTINGS } from '../../src/config/setting-table.js';
import { resolveLimiterOptions } from '../../src/limits/index.js';

test('the limiter flags set the fields of the limits option', () => {
  const options = serveOptions(
    [
      '--refusals-before-ban',
      '5',
      '--refusal-window-ms',
      '2000',
      '--ban-ms',
      '30000',
      '--failed-auth-per-minute',
      '3',
      '--max-addresses',
      '100',
    ],
    {},
  );
  assert.deepEqual(options.limits, {
    refusalsBeforeBan: 5,
    refusalWindowMs: 2000,
    banMs: 30_000,
    failedAuthCapacity: 3,
    maxAddresses: 100,
  });
  assert.equal('banMs' in options, false, 'no limiter setting lands among the top-level options');
});

test('the limiter variables set them too, and a flag wins over its variable', () => {
  const env = {
    ANIMAL_STORE_REFUSALS_BEFORE_BAN: '7',
    ANIMAL_STORE_REFUSAL_WINDOW_MS: '1000',
    ANIMAL_STORE_BAN_MS: '60000',
    ANIMAL_STORE_FAILED_AUTH_PER_MINUTE: '10',
    ANIMAL_STORE_MAX_ADDRESSES: '50',
  };
  assert.deepEqual(serveOptions([], env).limits, {
    refusalsBeforeBan: 7,
    refusalWindowMs: 1000,
    banMs: 60_000,
    failedAuthCapacity: 10,
    maxAddresses: 50,
  });
  assert.deepEqual(serveOptions(['--ban-ms', '5000'], env).limits.banMs, 5000);
});

test('with no limiter flag or variable the limits option is empty, so the limiter keeps its defaults', () => {
  const { limits } = serveOptions([], {});
  assert.deepEqual(limits, {});
  assert.deepEqual(resolveLimiterOptions(limits), resolveLimiterOptions());
});

test('the largest and smallest values of each limiter setting are taken', () => {
  for (const [flag, max] of [
    ['--refusals-before-ban', 1000],
    ['--refusal-window-ms', 86_400_000],
    ['--ban-ms', 86_400_000],
    ['--failed-auth-per-minute', 100_000],
    ['--max-addresses', 1_000_000],
  ] as const) {
    assert.deepEqual(Object.values(serveOptions([flag, String(max)], {}).limits), [max], flag);
    assert.deepEqual(Object.values(serveOptions([flag, '1'], {}).limits), [1], flag);
  }
});

test('a bad limiter value is a TypeError naming the flag or variable, its range and the value', () => {
  for (const [argv, env, message] of [
    [['--refusals-before-ban', '0'], {}, '--refusals-before-ban must be a whole number from 1 to 1000, not "0"'],
    [['--refusals-before-ban', '1001'], {}, '--refusals-before-ban must be a whole number from 1 to 1000, not "1001"'],
    [
      ['--refusal-window-ms', '86400001'],
      {},
      '--refusal-window-ms must be a whole number from 1 to 86400000, not "86400001"',
    ],
    [['--ban-ms=-5'], {}, '--ban-ms must be a whole number from 1 to 86400000, not "-5"'],
    [['--ban-ms', '15m'], {}, '--ban-ms must be a whole number from 1 to 86400000, not "15m"'],
    [
      ['--failed-auth-per-minute', '2.5'],
      {},
      '--failed-auth-per-minute must be a whole number from 1 to 100000, not "2.5"',
    ],
    [['--max-addresses', ''], {}, '--max-addresses must be a whole number from 1 to 1000000, not ""'],
    [
      [],
      { ANIMAL_STORE_MAX_ADDRESSES: '1e6' },
      'ANIMAL_STORE_MAX_ADDRESSES must be a whole number from 1 to 1000000, not "1e6"',
    ],
    [
      [],
      { ANIMAL_STORE_BAN_MS: '99999999999999999999' },
      'ANIMAL_STORE_BAN_MS must be a whole number from 1 to 86400000, not "99999999999999999999"',
    ],
    [
      [],
      { ANIMAL_STORE_FAILED_AUTH_PER_MINUTE: 'thirty' },
      'ANIMAL_STORE_FAILED_AUTH_PER_MINUTE must be a whole number from 1 to 100000, not "thirty"',
    ],
  ] as const) {
    assert.throws(
      () => serveOptions(argv, env),
      { name: 'TypeError', message },
      `${argv.join(' ')} ${JSON.stringify(env)}`,
    );
  }
});

test('an integer setting without a bound keeps its message', () => {
  assert.throws(() => serveOptions(['--max-body-bytes', '0'], {}), {
    name: 'TypeError',
    message: '--max-body-bytes must be a positive whole number, not "0"',
  });
  assert.equal(serveOptions(['--max-body-bytes', '99999999'], {}).maxBodyBytes, 99_999_999);
});

test('--help lists every setting with its variable, the limiter ones included', () => {
  for (const setting of SETTINGS)
    assert.match(
      SERVE_HELP,
      new RegExp(`^  ${setting.flag} \\S+ +\\S.*\\[${setting.env}(; default [^\\]]+)?\\]$`, 'm'),
      setting.flag,
    );
  assert.match(
    SERVE_HELP,
    /--failed-auth-per-minute VALUE +Failed authentications \(401\) allowed per client address per minute/,
  );
  assert.match(SERVE_HELP, /--trust-proxy \[true\|false\] .*; default false\]/, 'a yes/no flag shows its values');
  assert.match(SERVE_HELP, /--data-dir VALUE .*; default \.\/data\]/, "the CLI's own defaults are shown");
  assert.match(SERVE_HELP, /--ban-ms VALUE .*; default 900000\]/, 'limiter defaults are shown');
});

test('--help shows no default for a flag that is off unless given (never "default undefined")', () => {
  assert.doesNotMatch(SERVE_HELP, /undefined/);
  for (const [flag, env] of [
    ['--database-url', 'ANIMAL_STORE_DATABASE_URL'],
    ['--redis-url', 'ANIMAL_STORE_REDIS_URL'],
    ['--metrics-port', 'ANIMAL_STORE_METRICS_PORT'],
  ])
    assert.match(SERVE_HELP, new RegExp(`^  ${flag} VALUE .*\\[${env}\\]$`, 'm'), flag);
});

test('the data directory is ./data unless nothing is kept there: PostgreSQL with Redis', () => {
  const database = ['--database-url', 'postgres://127.0.0.1/animals'];
  assert.equal(serveOptions([], {}).dataDir, './data');
  assert.equal(serveOptions(database, {}).dataDir, './data', 'the in-memory limiter saves its state there');
  assert.equal(serveOptions([...database, '--redis-url', 'redis://127.0.0.1'], {}).dataDir, undefined);
  assert.equal(
    serveOptions([...database, '--redis-url', 'redis://127.0.0.1', '--data-dir', '/srv/a'], {}).dataDir,
    '/srv/a',
  );
  assert.equal(serveOptions(database, { ANIMAL_STORE_DATA_DIR: '/srv/b' }).dataDir, '/srv/b');
});

test('a yes/no flag given alone means true; with a value it takes the value', () => {
  assert.equal(serveOptions(['--trust-proxy'], {}).trustProxy, true);
  assert.equal(serveOptions(['--trust-proxy', '--port', '9000'], {}).trustProxy, true);
  assert.equal(serveOptions(['--trust-proxy', 'false'], {}).trustProxy, false);
  assert.equal(serveOptions(['--trust-proxy=0'], {}).trustProxy, false);
  assert.equal(serveOptions([], {}).trustProxy, undefined);
});

test('a setting that runs a timer is refused past 2^31 − 1 ms, which a Node timer cannot hold', () => {
  for (const flag of [
    '--webhook-timeout-ms',
    '--keep-alive-timeout-ms',
    '--send-timeout-ms',
    '--request-timeout-ms',
    '--headers-timeout-ms',
    '--fsync-interval-ms',
  ]) {
    assert.throws(
      () => serveOptions([flag, '2147483648'], {}),
      { name: 'TypeError', message: `${flag} must be a whole number from 1 to 2147483647, not "2147483648"` },
      flag,
    );
    assert.doesNotThrow(() => serveOptions([flag, '2147483647'], {}), flag);
  }
});

test('a date setting takes a calendar date or an RFC 3339 time, and nothing Date.parse would guess at', () => {
  assert.equal(serveOptions(['--sunset-at', '2031-01-02'], {}).sunsetAt, Date.UTC(2031, 0, 2));
  assert.equal(serveOptions(['--sunset-at', '2031-01-02T01:00:00+01:00'], {}).sunsetAt, Date.UTC(2031, 0, 2));
  assert.equal(
    serveOptions(['--deprecated-at', '2026-11-22T00:00:00.5Z'], {}).deprecatedAt,
    Date.UTC(2026, 10, 22) + 500,
  );
  for (const text of ['-1', '0', '2026', '2026-11', '2030-02-30', '2030-13-01', 'Dec 5 2030', '2030-12-05T00:00Z'])
    assert.throws(
      () => serveOptions([`--deprecated-at=${text}`], {}),
      { name: 'TypeError', message: /must be a date/ },
      text,
    );
});

test('a library option named in a message is said as its flag; plain words stay', () => {
  assert.equal(
    inCommandLineTerms('option tlsCert needs tlsKey too: TLS takes a certificate'),
    '--tls-cert needs --tls-key too: TLS takes a certificate',
  );
  assert.equal(inCommandLineTerms('option keys key 2: bad plan'), 'ANIMAL_STORE_KEYS entry 2: bad plan');
  assert.equal(inCommandLineTerms('option limits.banMs must be short'), '--ban-ms must be short');
  assert.equal(
    inCommandLineTerms('option port must be a port; the host is fine'),
    '--port must be a port; the host is fine',
  );
});
