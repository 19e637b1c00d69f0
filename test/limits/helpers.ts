// Shared fixtures of the limiter tests: a fixed start time, the header fields a decision is rendered as
// (by the HTTP layer, as every answer renders it), bursts and sanity checks.

import assert from 'node:assert/strict';
import { setRateLimitHeaders } from '../../src/http/rate-limit-headers.js';
import { ResponseHeaders } from '../../src/http/response-headers.js';
import type { Decision, Limits, MemoryLimiter } from '../../src/limits/index.js';

/** 2026-11-22T00:00:00Z, a whole second, so Reset values are easy to read. */
export const T0_MS = Date.UTC(2026, 10, 22);
/** T0_MS in Unix seconds. */
export const T0_S = T0_MS / 1000;

/** The rate-limit header fields of a decision, in the order they are sent, as [name, value] pairs. */
export function headerListOf(decision: Decision | undefined): Array<[name: string, value: string]> {
  assert.ok(decision !== undefined, 'no decision');
  const headers = new ResponseHeaders('request-id');
  setRateLimitHeaders(headers, decision);
  const pairs: Array<[string, string]> = [];
  // The first field is the X-Request-Id every answer carries.
  for (let index = 2; index < headers.list.length; index += 2)
    pairs.push([headers.list[index] as string, headers.list[index + 1] as string]);
  return pairs;
}

/** A decision's header fields as an object, for exact comparison. */
export function headersOf(decision: Decision): Record<string, string> {
  return Object.fromEntries(headerListOf(decision));
}

/** Sends `count` requests at the current instant and returns their decisions. */
export function burst(limiter: MemoryLimiter, keyId: string, limits: Limits, count: number): Decision[] {
  const decisions: Decision[] = [];
  for (let i = 0; i < count; i += 1) decisions.push(limiter.admitKey(keyId, limits));
  return decisions;
}

/** Asserts the numeric header fields are whole, non-negative numbers (no NaN, no negative). */
export function assertSaneHeaders(decision: Decision): void {
  const headers = headersOf(decision);
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after']) {
    const value = headers[name];
    if (value === undefined) continue;
    assert.match(value, /^(0|[1-9][0-9]*)$/, `${name}: ${value}`);
  }
  assert.match(headers.ratelimit ?? '', /^"(minute|day|failed-auth)";r=(0|[1-9][0-9]*);t=(0|[1-9][0-9]*)$/);
}
