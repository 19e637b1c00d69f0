// The over-limit scenario: a free key (60/min, 1,000/day) driven past its plan. Every answer must be
// 200 or 429 with well-formed rate-limit headers (README "Keys and plans", README "Rate limits"), some must be 429, and
// afterwards a client that honours Retry-After with exponential backoff must get a 200 again.
// The drive stops OVER_LIMIT_REFUSALS refusals past the limit, below the 31 refusals a minute that
// start a 15-minute ban (README "Rate limits"), so the recovery is measurable in seconds.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { getGlobalDispatcher, request } from 'undici';
import { AnimalStoreClient, AnimalStoreError, type RetryPolicy } from '../src/client/index.js';
import { type LoadResult, type ResponseHeaders, runLoad } from './load.js';
import { LIST_LIMIT, type Target } from './scenarios.js';

/** Requests sent past the key's remaining tokens: refusals, but fewer than the 31 that start a ban. */
export const OVER_LIMIT_REFUSALS = 20;
/** The recovering client's policy: first backoff, its cap, and how long it may take in all. */
const RECOVERY_POLICY: RetryPolicy = { maxAttempts: 30, baseDelayMs: 250, maxDelayMs: 60_000, deadlineMs: 180_000 };
/** Slack for clocks and rounding when comparing Unix-second headers with this machine's clock. */
const CLOCK_SLACK_SECONDS = 2;
const DAY_SECONDS = 86_400;

function header(headers: ResponseHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? undefined : value;
}

const wholeNumber = (text: string | undefined): number | undefined =>
  text !== undefined && /^[0-9]+$/.test(text) ? Number(text) : undefined;

/** What is wrong with the rate-limit headers of a 200 or 429, if anything; `nowMs` is this machine's clock. */
export function checkRateLimitHeaders(status: number, headers: ResponseHeaders, nowMs: number): string | undefined {
  if (status !== 200 && status !== 429) return `status ${status}, expected 200 or 429`;
  const limit = wholeNumber(header(headers, 'x-ratelimit-limit'));
  const remaining = wholeNumber(header(headers, 'x-ratelimit-remaining'));
  const reset = wholeNumber(header(headers, 'x-ratelimit-reset'));
  if (limit === undefined || limit < 1) return `${status}: X-RateLimit-Limit missing or not a positive integer`;
  if (remaining === undefined || remaining > limit)
    return `${status}: X-RateLimit-Remaining missing or above the limit`;
  const nowSeconds = nowMs / 1000;
  if (
    reset === undefined ||
    reset < nowSeconds - CLOCK_SLACK_SECONDS ||
    reset > nowSeconds + DAY_SECONDS + CLOCK_SLACK_SECONDS
  ) {
    return `${status}: X-RateLimit-Reset missing or not a Unix time within a day`;
  }
  if (
    header(headers, 'ratelimit-policy') === undefined ||
    !/r=[0-9]+;t=[0-9]+/.test(header(headers, 'ratelimit') ?? '')
  ) {
    return `${status}: RateLimit-Policy or RateLimit missing or malformed`;
  }
  if (status === 429) {
    const retryAfter = wholeNumber(header(headers, 'retry-after'));
    // RFC 9110 §10.2.3 delay-seconds; README "Rate limits": at least 1, and never past X-RateLimit-Reset.
    if (retryAfter === undefined || retryAfter < 1)
      return '429: Retry-After missing or not a whole number of seconds >= 1';
    if (retryAfter > reset - nowSeconds + CLOCK_SLACK_SECONDS) return '429: Retry-After points past X-RateLimit-Reset';
    if (remaining !== 0) return '429: X-RateLimit-Remaining is not 0';
  }
  return undefined;
}

export interface OverLimitResult {
  drive: LoadResult;
  /** The key's limit and remaining tokens before the drive. */
  limit: number;
  remainingBefore: number;
  recovery: { recovered: boolean; attempts: number; elapsedMs: number; waitsMs: number[] };
  /** Faults beyond unexpected statuses: no 429 at all, no recovery. */
  failures: string[];
}

/**
 * Drives `target.key` past its limit and checks the answers and the recovery; `transport` as the
 * bench's --http2 and --insecure say.
 */
export async function runOverLimit(
  target: Target,
  connections: number,
  timeoutMs: number,
  transport: { http2?: boolean; insecure?: boolean } = {},
): Promise<OverLimitResult> {
  const path = `${target.basePath}/pets?limit=${LIST_LIMIT}`;
  const headers = { authorization: `Bearer ${target.key ?? ''}` };
  const probe = await request(`${target.origin}${path}`, { headers });
  await probe.body.dump();
  const probeFault = checkRateLimitHeaders(probe.statusCode, probe.headers, Date.now());
  if (probeFault !== undefined) throw new Error(`over-limit probe: ${probeFault}`);
  const limit = Number(probe.headers['x-ratelimit-limit']);
  const remainingBefore = Number(probe.headers['x-ratelimit-remaining']);
  if (limit > 10_000)
    throw new Error(`the key allows ${limit} requests; over-limit needs a free-plan key (60/min), pass one with --key`);

  const drive = await runLoad({
    origin: target.origin,
    ...transport,
    connections: Math.min(connections, OVER_LIMIT_REFUSALS),
    pipelining: 1,
    amount: remainingBefore + OVER_LIMIT_REFUSALS,
    durationMs: undefined,
    ratePerSecond: undefined,
    timeoutMs,
    nextRequest: () => ({ method: 'GET', path, headers }),
    expectedStatuses: new Set([200, 429]),
    inspect: (status, responseHeaders) => checkRateLimitHeaders(status, responseHeaders, Date.now()),
  });
  const failures: string[] = [];
  if ((drive.statusCounts[429] ?? 0) === 0)
    failures.push(`no 429 after ${drive.completed} requests on a key with ${remainingBefore} left`);

  // The recovering client is animal-store/client: it honours Retry-After and backs off exponentially
  // with jitter. Its sleep is wrapped only to record the waits it chose.
  const started = performance.now();
  const waitsMs: number[] = [];
  // Through undici's global dispatcher, which the bench sets for --http2 and --insecure.
  const client = new AnimalStoreClient({
    baseUrl: `${target.origin}${target.basePath}`,
    ...((transport.http2 === true || transport.insecure === true) && { dispatcher: getGlobalDispatcher() }),
    apiKey: target.key ?? '',
    connections: 1,
    retry: RECOVERY_POLICY,
    sleep: (ms) => {
      waitsMs.push(ms);
      return sleep(ms);
    },
  });
  let recovered = false;
  let attempts = 0;
  try {
    await client.listPets({ limit: LIST_LIMIT });
    attempts = waitsMs.length + 1;
    recovered = true;
  } catch (error) {
    attempts = error instanceof AnimalStoreError ? error.attempts : attempts;
    failures.push(
      `no 200 within ${RECOVERY_POLICY.deadlineMs} ms of honouring Retry-After: ${(error as Error).message}`,
    );
  } finally {
    await client.close();
  }
  return {
    drive,
    limit,
    remainingBefore,
    recovery: { recovered, attempts, elapsedMs: performance.now() - started, waitsMs },
    failures,
  };
}
