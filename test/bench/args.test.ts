// Bench options: defaults like autocannon's, every option parsed, mistakes named.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BENCH_HELP, DEFAULT_CONNECTIONS, DEFAULT_DURATION_MS, parseBenchArgs, parseTimeMs } from '../../bench/args.js';

test('no options: list for 10 s over 10 connections against a local service', () => {
  const options = parseBenchArgs([]);
  assert.equal(options.scenario, 'list');
  assert.equal(options.url, undefined);
  assert.equal(options.connections, DEFAULT_CONNECTIONS);
  assert.equal(options.pipelining, 1);
  assert.equal(options.durationMs, DEFAULT_DURATION_MS);
  assert.equal(options.amount, undefined);
  assert.equal(options.ratePerSecond, undefined);
  assert.equal(options.durability, 'always');
  assert.equal(options.help, false);
});

test('every option, long and short', () => {
  const options = parseBenchArgs([
    '--url',
    'http://example.test:8080/v1/',
    '--key',
    'k',
    '-c',
    '64',
    '-p',
    '4',
    '-a',
    '200',
    '-R',
    '1500.5',
    '-s',
    'get',
    '--json',
    'out.json',
    '-t',
    '2s',
    '--pets',
    '5000',
    '-q',
  ]);
  assert.equal(options.url, 'http://example.test:8080/v1');
  assert.equal(options.key, 'k');
  assert.equal(options.connections, 64);
  assert.equal(options.pipelining, 4);
  assert.equal(options.amount, 200);
  assert.equal(options.durationMs, undefined);
  assert.equal(options.ratePerSecond, 1500.5);
  assert.equal(options.scenario, 'get');
  assert.equal(options.jsonFile, 'out.json');
  assert.equal(options.timeoutMs, 2000);
  assert.equal(options.pets, 5000);
  assert.equal(options.quiet, true);
});

test('times in seconds by default, or with ms, s or m', () => {
  assert.equal(parseTimeMs('10', '--duration'), 10_000);
  assert.equal(parseTimeMs('2.5', '--duration'), 2500);
  assert.equal(parseTimeMs('500ms', '--duration'), 500);
  assert.equal(parseTimeMs('1m', '--duration'), 60_000);
  for (const bad of ['', '0', '-1', '10h', 'ten', '0.0001'])
    assert.throws(() => parseTimeMs(bad, '--duration'), /--duration must be a time/);
});

test('the key may come from ANIMAL_STORE_BENCH_KEY', () => {
  assert.equal(parseBenchArgs(['--url', 'http://h/v1'], { ANIMAL_STORE_BENCH_KEY: 'from-env' }).key, 'from-env');
});

test('mistakes are TypeErrors that name the option', () => {
  const cases: [string[], RegExp][] = [
    [['--scenario', 'nope'], /--scenario must be one of list, list-status/],
    [['--duration', '5', '--amount', '5'], /--duration or --amount, not both/],
    [['-c', '0'], /--connections must be a whole number from 1/],
    [['-p', 'x'], /--pipelining/],
    [['--rate=-5'], /--rate must be a positive number/],
    [['--rate', '0'], /--rate must be a positive number/],
    [['--rate', '1e3'], /--rate/],
    [['--url', 'ftp://h/v1', '--key', 'k'], /--url must be http or https/],
    [['--url', 'not a url'], /--url must be an absolute/],
    [['--url', 'http://h/v1?x=1', '--key', 'k'], /no query/],
    [['--url', 'http://h/v1'], /--url needs --key/],
    [['--url', 'http://h/v1', '--key', 'k', '--durability', 'never'], /local service only/],
    [['--url', 'http://h/v1', '--key', 'k', '--profile', 'p'], /local service only/],
    [['--url', 'http://h/v1', '--key', 'k', '--scenario', 'startup'], /drop --url/],
    [['--durability', 'sometimes'], /--durability must be/],
    [['--bogus'], /Unknown option/],
    [['extra'], /unexpected argument "extra"/],
  ];
  for (const [argv, message] of cases)
    assert.throws(
      () => parseBenchArgs(argv),
      (error: unknown) => error instanceof TypeError && message.test(error.message),
      argv.join(' '),
    );
});

test('unauthorized needs no key, even against a deployment', () => {
  assert.equal(parseBenchArgs(['--url', 'http://h/v1', '--scenario', 'unauthorized']).key, undefined);
});

test('every example of --help is a command line the parser takes', () => {
  const examples = BENCH_HELP.slice(BENCH_HELP.indexOf('\nExamples:\n')).trim().split('\n').slice(1);
  assert.ok(examples.length >= 5, BENCH_HELP);
  for (const line of examples) {
    // Words split at spaces; a quoted word such as "$API_KEY" stands for the key it expands to.
    const words = line
      .trim()
      .split(/ +/)
      .map((word) => word.replace(/^"(.*)"$/, '$1'));
    const prefix = words[0] === 'npm' ? ['npm', 'run', 'bench', '--'] : ['animal-store', 'bench'];
    assert.deepEqual(words.slice(0, prefix.length), prefix, line);
    assert.doesNotThrow(() => parseBenchArgs(words.slice(prefix.length)), line);
  }
});

test('--http2 and -k (--insecure) are for an https --url, and off unless given', () => {
  const plain = parseBenchArgs(['--url', 'https://127.0.0.1:8443/v1', '--key', 'k']);
  assert.equal(plain.http2, false);
  assert.equal(plain.insecure, false);
  const both = parseBenchArgs(['--url', 'https://127.0.0.1:8443/v1', '--key', 'k', '--http2', '-k']);
  assert.equal(both.http2, true);
  assert.equal(both.insecure, true);
  for (const flag of ['--http2', '--insecure']) {
    assert.throws(() => parseBenchArgs([flag]), new RegExp(`^TypeError: ${flag} needs an https --url`));
    assert.throws(
      () => parseBenchArgs(['--url', 'http://127.0.0.1:8080/v1', '--key', 'k', flag]),
      new RegExp(`^TypeError: ${flag} needs an https --url`),
    );
  }
  assert.match(BENCH_HELP, /--http2 +With an https --url/);
  assert.match(BENCH_HELP, /-k, --insecure +With an https --url/);
});
