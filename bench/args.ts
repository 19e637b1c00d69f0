// Command-line options of `npm run bench` / `animal-store bench`, parsed into BenchOptions. Pure: a
// bad option throws a TypeError naming it (the CLI turns that into exit code 2), nothing else.
import { parseArgs } from 'node:util';

/** Every scenario of the bench suite; `startup` replays a generated log instead of sending load. */
export const SCENARIO_NAMES = [
  'list',
  'list-status',
  'deep-page',
  'get',
  'create',
  'mixed',
  'over-limit',
  'unauthorized',
  'startup',
] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

export const DURABILITIES = ['always', 'interval', 'never'] as const;
export type Durability = (typeof DURABILITIES)[number];

/** autocannon's defaults: 10 connections for 10 s. */
export const DEFAULT_CONNECTIONS = 10;
export const DEFAULT_DURATION_MS = 10_000;
/** autocannon's default per-request timeout, 10 s. */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Beyond this a single machine is not what is being measured. */
const MAX_CONNECTIONS = 10_000;
const MAX_PIPELINING = 1_000;
const MAX_WORKERS = 256;

/** What a bench run does. */
export interface BenchOptions {
  /** The API address, base path included (http://host:8080/v1); undefined starts a local service. */
  url: string | undefined;
  /** The API key to send; required with --url except for `unauthorized`. */
  key: string | undefined;
  connections: number;
  /** Requests in flight per connection (HTTP/1.1 pipelining); 1 = none. */
  pipelining: number;
  /** Threads the connections are spread over (autocannon's --workers); 1 = this thread alone. */
  workers: number;
  /** Run length; undefined when --amount is given. */
  durationMs: number | undefined;
  /** Number of requests; undefined when the run is timed. */
  amount: number | undefined;
  /** Fixed arrival rate in requests per second; undefined sends as fast as answers come back. */
  ratePerSecond: number | undefined;
  /** The same load first, unmeasured, on the same connections (0: none). */
  warmupMs: number;
  scenario: ScenarioName;
  /** Where to write the JSON result too. */
  jsonFile: string | undefined;
  timeoutMs: number;
  /** Local service only: when writes are fsynced (default: always, the service's default). */
  durability: Durability;
  /** Pets to seed: a local store is generated with this many; with --url, missing ones are created over HTTP. */
  pets: number | undefined;
  /** Local service only: directory for the service's CPU profile (node --cpu-prof). */
  profileDir: string | undefined;
  /** Send the load over HTTP/2 (an https --url): each connection a session with -p streams at once. */
  http2: boolean;
  /** Accept a certificate no authority vouches for (a self-signed one), for an https --url. */
  insecure: boolean;
  /** No progress line and no table, only the JSON on stdout (for scripts). */
  quiet: boolean;
  help: boolean;
}

export const BENCH_HELP = `Usage: npm run bench -- [options]    (or: animal-store bench [options])

Load-tests the animal store API in the style of autocannon. Without --url it starts a local service
on a temporary data directory, seeds it as the scenario needs, and removes it afterwards.

Options:
  --scenario NAME      ${SCENARIO_NAMES.join(', ')} [list]
  --url URL            API address with its base path, e.g. http://127.0.0.1:8080/v1 [local service]
  --key KEY            API key to send (or ANIMAL_STORE_BENCH_KEY); with --url, over-limit needs a free key
  -c, --connections N  Connections to keep open [${DEFAULT_CONNECTIONS}]
  -p, --pipelining N   Requests in flight per connection [1]
  -W, --workers N      Threads to spread the connections over; one saturates a node:http core [1]
  -d, --duration TIME  Run length: 10, 10s, 500ms or 1m [10s]
  -a, --amount N       Send N requests instead of running for a time
  -R, --rate N         Fixed arrival rate in requests/s; latency counts from the intended send time
  -w, --warmup TIME    The same load first, unmeasured, on the same connections [0]
  -t, --timeout TIME   Per-request timeout [10s]
  --json FILE          Also write the result as JSON to FILE
  --pets N             Pets to seed (local: generated log; --url: missing ones created by POST)
  --durability MODE    Local service: always, interval or never [always]
  --profile DIR        Local service: write its CPU profile (node --cpu-prof) into DIR
  --http2              With an https --url: HTTP/2 (ALPN h2), each connection a session with -p streams
  -k, --insecure       With an https --url: accept a certificate no authority vouches for (self-signed)
  -q, --quiet          Print only the JSON result on stdout
  -h, --help           Show this help.

Exit code: 0 when every answer had a status the scenario expects, 1 otherwise, 2 on a bad option.

Examples:
  npm run bench -- --scenario list -c 10 -d 10s
  npm run bench -- --scenario list --rate 5000 -d 30s --json list-at-5000.json
  npm run bench -- --scenario deep-page --pets 1000000 --amount 20000
  npm run bench -- --scenario create --durability never -c 64 -d 10s
  npm run bench -- --scenario startup --pets 1000000
  animal-store bench --url http://127.0.0.1:8080/v1 --key "$API_KEY" --scenario get -c 32 -p 4
  animal-store bench --url http://127.0.0.1:8080/v1 --key "$FREE_KEY" --scenario over-limit
  animal-store bench --url https://127.0.0.1:8443/v1 --key "$API_KEY" --scenario get --http2 -c 4 -p 32 -k
`;

/** A whole number within [min, max], or a TypeError naming the option. */
function wholeNumber(text: string, option: string, min: number, max: number): number {
  if (!/^[0-9]+$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new TypeError(`${option} must be a whole number from ${min} to ${max}, not "${text}"`);
  }
  return Number(text);
}

/** A time: bare seconds ("10", "2.5"), or with a unit ("500ms", "10s", "1m"); in ms. */
export function parseTimeMs(text: string, option: string): number {
  const match = /^([0-9]+(?:\.[0-9]+)?)(ms|s|m)?$/.exec(text);
  const value = match === null ? Number.NaN : Number(match[1]);
  const unitMs = match?.[2] === 'ms' ? 1 : match?.[2] === 'm' ? 60_000 : 1000;
  const ms = value * unitMs;
  if (!(ms >= 1)) throw new TypeError(`${option} must be a time such as 10, 10s, 500ms or 1m, not "${text}"`);
  return Math.round(ms);
}

function parseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TypeError(`--url must be an absolute http(s) address such as http://127.0.0.1:8080/v1, not "${text}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TypeError(`--url must be http or https, not ${url.protocol}`);
  if (url.search !== '' || url.hash !== '')
    throw new TypeError('--url takes no query or fragment: give the API base, e.g. http://127.0.0.1:8080/v1');
  // The base path is kept without its trailing slash; every scenario appends "/pets...".
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** Parses bench options; `env` supplies ANIMAL_STORE_BENCH_KEY so a key need not be on the command line. */
export function parseBenchArgs(argv: readonly string[], env: NodeJS.ProcessEnv = {}): BenchOptions {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: {
      url: { type: 'string' },
      key: { type: 'string' },
      connections: { type: 'string', short: 'c' },
      pipelining: { type: 'string', short: 'p' },
      workers: { type: 'string', short: 'W' },
      duration: { type: 'string', short: 'd' },
      amount: { type: 'string', short: 'a' },
      rate: { type: 'string', short: 'R' },
      warmup: { type: 'string', short: 'w' },
      timeout: { type: 'string', short: 't' },
      scenario: { type: 'string', short: 's' },
      json: { type: 'string' },
      pets: { type: 'string' },
      durability: { type: 'string' },
      profile: { type: 'string' },
      http2: { type: 'boolean' },
      insecure: { type: 'boolean', short: 'k' },
      quiet: { type: 'boolean', short: 'q' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 0) throw new TypeError(`unexpected argument "${positionals[0]}"; options start with --`);
  const scenario = values.scenario ?? 'list';
  if (!(SCENARIO_NAMES as readonly string[]).includes(scenario)) {
    throw new TypeError(`--scenario must be one of ${SCENARIO_NAMES.join(', ')}, not "${scenario}"`);
  }
  if (values.duration !== undefined && values.amount !== undefined)
    throw new TypeError('give --duration or --amount, not both');
  const durability = values.durability ?? 'always';
  if (!(DURABILITIES as readonly string[]).includes(durability))
    throw new TypeError(`--durability must be always, interval or never, not "${durability}"`);
  const url = values.url === undefined ? undefined : parseUrl(values.url);
  if (url !== undefined && values.durability !== undefined)
    throw new TypeError('--durability applies to the local service only; drop it with --url');
  if (url !== undefined && values.profile !== undefined)
    throw new TypeError('--profile applies to the local service only; drop it with --url');
  if (url !== undefined && scenario === 'startup')
    throw new TypeError('the startup scenario replays a local log; drop --url');
  // The local service serves plain HTTP: TLS and HTTP/2 are measured against a deployment that has them.
  for (const flag of ['http2', 'insecure'] as const) {
    if (values[flag] === true && (url === undefined || !url.startsWith('https:')))
      throw new TypeError(`--${flag} needs an https --url, such as https://127.0.0.1:8443/v1`);
  }
  const key = values.key ?? env.ANIMAL_STORE_BENCH_KEY;
  if (url !== undefined && key === undefined && scenario !== 'unauthorized') {
    throw new TypeError(`--url needs --key (or ANIMAL_STORE_BENCH_KEY) for the ${scenario} scenario`);
  }
  const amount =
    values.amount === undefined ? undefined : wholeNumber(values.amount, '--amount', 1, Number.MAX_SAFE_INTEGER);
  const rate = values.rate === undefined ? undefined : Number(values.rate);
  if (rate !== undefined && !(Number.isFinite(rate) && rate > 0 && /^[0-9.]+$/.test(values.rate as string))) {
    throw new TypeError(`--rate must be a positive number of requests per second, not "${values.rate}"`);
  }
  const connections =
    values.connections === undefined
      ? DEFAULT_CONNECTIONS
      : wholeNumber(values.connections, '--connections', 1, MAX_CONNECTIONS);
  const workers = values.workers === undefined ? 1 : wholeNumber(values.workers, '--workers', 1, MAX_WORKERS);
  if (workers > connections)
    throw new TypeError(
      `--workers ${workers} needs at least as many connections (each thread keeps its own); got -c ${connections}`,
    );
  return {
    url,
    key,
    connections,
    workers,
    pipelining: values.pipelining === undefined ? 1 : wholeNumber(values.pipelining, '--pipelining', 1, MAX_PIPELINING),
    durationMs:
      amount !== undefined
        ? undefined
        : values.duration === undefined
          ? DEFAULT_DURATION_MS
          : parseTimeMs(values.duration, '--duration'),
    amount,
    ratePerSecond: rate,
    warmupMs: values.warmup === undefined || values.warmup === '0' ? 0 : parseTimeMs(values.warmup, '--warmup'),
    scenario: scenario as ScenarioName,
    jsonFile: values.json,
    timeoutMs: values.timeout === undefined ? DEFAULT_TIMEOUT_MS : parseTimeMs(values.timeout, '--timeout'),
    durability: durability as Durability,
    pets: values.pets === undefined ? undefined : wholeNumber(values.pets, '--pets', 0, 100_000_000),
    profileDir: values.profile,
    http2: values.http2 === true,
    insecure: values.insecure === true,
    quiet: values.quiet === true,
    help: values.help === true,
  };
}
