// The limiter state saved on a graceful stop and restored at start-up (README "Rate limits": "day buckets
// and bans are saved ... Minute buckets, refusal counts and the per-address table are not saved").
// Times are wall-clock (Unix ms), the only clock that means anything across a restart; the running
// limiter converts them to and from its monotonic clock. The format is JSON-serialisable, versioned,
// and keyed by arrays rather than object members, so no key id can collide with `__proto__`.
//
// Reading is defensive: the file may be hand-edited, truncated or from another version. A wrong
// version ignores the whole state (its fields may mean something else); otherwise each malformed
// entry is dropped on its own, and nothing here ever throws.

import { isLimit } from './plans.js';

/** The version of the saved format this code writes and reads. */
export const LIMITER_STATE_VERSION = 1;

/** Longest key id accepted from a saved state; ids are short hashes, so anything longer is garbage. */
export const MAX_SAVED_KEY_ID_LENGTH = 512;

/** A key's day bucket: `tokens` of `capacity`, as measured at wall time `measuredAtMs`. */
export interface SavedDayBucket {
  key: string;
  tokens: number;
  capacity: number;
  measuredAtMs: number;
}

/** A key's ban, ending at wall time `untilMs`. */
export interface SavedBan {
  key: string;
  untilMs: number;
}

/** Everything the limiter saves on a graceful stop. */
export interface SavedLimiterState {
  version: typeof LIMITER_STATE_VERSION;
  /** Wall time of the save, for people reading the file. */
  savedAtMs: number;
  days: SavedDayBucket[];
  bans: SavedBan[];
}

/** The valid entries of a saved state; anything malformed is left out. */
export interface ParsedLimiterState {
  days: SavedDayBucket[];
  bans: SavedBan[];
}

/** Reads a saved state of unknown shape, keeping only well-formed entries; never throws. */
export function parseLimiterState(input: unknown): ParsedLimiterState {
  const parsed: ParsedLimiterState = { days: [], bans: [] };
  try {
    if (!isRecord(input) || input.version !== LIMITER_STATE_VERSION) return parsed;
    const days = input.days;
    if (Array.isArray(days)) {
      for (const entry of days) {
        const day = parseDay(entry);
        if (day !== undefined) parsed.days.push(day);
      }
    }
    const bans = input.bans;
    if (Array.isArray(bans)) {
      for (const entry of bans) {
        const ban = parseBan(entry);
        if (ban !== undefined) parsed.bans.push(ban);
      }
    }
    return parsed;
  } catch {
    // Only an exotic object (a throwing getter or Proxy) gets here; JSON.parse output never does.
    return { days: [], bans: [] };
  }
}

function parseDay(entry: unknown): SavedDayBucket | undefined {
  if (!isRecord(entry)) return undefined;
  const { key, tokens, capacity, measuredAtMs } = entry;
  if (!isKeyId(key) || !isLimit(capacity) || !isWallTime(measuredAtMs)) return undefined;
  if (typeof tokens !== 'number' || !Number.isFinite(tokens) || tokens < 0) return undefined;
  return { key, tokens: Math.min(tokens, capacity), capacity, measuredAtMs };
}

function parseBan(entry: unknown): SavedBan | undefined {
  if (!isRecord(entry)) return undefined;
  const { key, untilMs } = entry;
  if (!isKeyId(key) || !isWallTime(untilMs)) return undefined;
  return { key, untilMs };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isKeyId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_SAVED_KEY_ID_LENGTH;
}

function isWallTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}
