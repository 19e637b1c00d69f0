// Shared fixtures of the limiter tests: a fixed start time, header lookup, bursts and sanity checks.

import assert from 'node:assert/strict';
import type { Decision, Limits, MemoryLimiter } from '../../src/limits/index.js';

/** 2026-11-22T00:00:00Z, a whole second, so Reset values are easy to read. */
export const T0_MS = Date.UTC(2026, 10, 22);
/** T0_MS in Unix seconds. */
export const T0_S = T0_MS / 1000;

/** A decision's headers as an object, for exact comparison. */
export function headersOf(decision: Decision): Record<string, string> {
  return Object.fromEntries(decision.headers);
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
