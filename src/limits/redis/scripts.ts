// The limiter's decisions as Redis scripts: each admission (both buckets, the refusal window, the ban)
// and each failed-authentication charge is one script, run atomically by Redis in one round trip, so
// instances sharing Redis never interleave a read and a write of the same key. Time is Redis's own
// (`TIME`), so instances with skewed clocks agree; a test may pass a time instead (ARGV[1] > 0).
// Every key gets an expiry at the moment it stops mattering (its buckets full again, its ban and
// refusal window over): absent state means full buckets, so nothing is lost when it expires, and
// Redis never grows with keys or addresses that have gone quiet.
//
// Numbers cross the boundary as strings: Redis turns a Lua number in a reply into an integer,
// which would drop the fractions of a token that a continuously refilled bucket holds.

/** The Lua shared by the scripts: the time, a bucket's refill, and the float slack of token counts. */
const PRELUDE = `
local EPSILON = 1e-9
local function now_ms(given)
  if given > 0 then return given end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
end
local function refill(tokens, capacity, window_ms, elapsed_ms)
  local refilled = tokens + elapsed_ms * capacity / window_ms
  if refilled > capacity then return capacity end
  return refilled
end
local function ms_until_token(tokens, capacity, window_ms)
  if tokens >= 1 - EPSILON then return 0 end
  return (1 - tokens) * window_ms / capacity
end
local function ms_until_full(tokens, capacity, window_ms)
  local missing = capacity - tokens
  if missing <= EPSILON then return 0 end
  return missing * window_ms / capacity
end
`;

/**
 * Admits one request of a key. KEYS: the key's hash (minute tokens m, day tokens d, time at, ban end),
 * its refusal list (the times of its last N+1 refusals, newest first). ARGV: time or 0, per minute,
 * per day, refusals before a ban (N), the refusal window, the ban's length (ms).
 * Reply: outcome (admitted, refused, banned), minute tokens, day tokens, wait ms, time ms, 1 when a ban started.
 */
export const ADMIT_KEY = `${PRELUDE}
local now = now_ms(tonumber(ARGV[1]))
local per_minute, per_day = tonumber(ARGV[2]), tonumber(ARGV[3])
local refusals_before_ban, refusal_window_ms, ban_ms = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local state = redis.call('HMGET', KEYS[1], 'm', 'd', 'at', 'ban')
local minute = tonumber(state[1]) or per_minute
local day = tonumber(state[2]) or per_day
local at = tonumber(state[3]) or now
local ban = tonumber(state[4]) or 0
local elapsed = 0
if now > at then elapsed = now - at; at = now end
-- A plan changed since: tokens are clamped to the new capacity, never raised.
minute = refill(math.min(minute, per_minute), per_minute, 60000, elapsed)
day = refill(math.min(day, per_day), per_day, 86400000, elapsed)
local outcome, wait, ban_started = 'admitted', 0, '0'
if ban > now then
  outcome, wait = 'banned', ban - now
else
  if ban ~= 0 then
    -- The ban is over: counting starts afresh.
    ban = 0
    redis.call('DEL', KEYS[2])
  end
  if minute >= 1 - EPSILON and day >= 1 - EPSILON then
    minute = math.max(minute - 1, 0)
    day = math.max(day - 1, 0)
  else
    outcome = 'refused'
    wait = math.max(ms_until_token(minute, per_minute, 60000), ms_until_token(day, per_day, 86400000))
    redis.call('LPUSH', KEYS[2], tostring(now))
    redis.call('LTRIM', KEYS[2], 0, refusals_before_ban)
    redis.call('PEXPIRE', KEYS[2], math.ceil(refusal_window_ms))
    if redis.call('LLEN', KEYS[2]) > refusals_before_ban then
      local oldest = tonumber(redis.call('LINDEX', KEYS[2], refusals_before_ban))
      if now - oldest < refusal_window_ms then
        -- This refusal is still a plain one; it starts the ban for the requests after it.
        ban = now + ban_ms
        wait = math.max(wait, ban_ms)
        ban_started = '1'
      end
    end
  end
end
redis.call('HSET', KEYS[1], 'm', tostring(minute), 'd', tostring(day), 'at', tostring(at), 'ban', tostring(ban))
local matters_ms = math.max(ms_until_full(minute, per_minute, 60000), ms_until_full(day, per_day, 86400000), ban - now)
redis.call('PEXPIRE', KEYS[1], math.ceil(matters_ms) + 1000)
return { outcome, tostring(minute), tostring(day), tostring(wait), tostring(now), ban_started }
`;

/** Gives back one token of each bucket (a request that counts against no key). KEYS, ARGV as ADMIT_KEY's first three. */
export const REFUND_KEY = `${PRELUDE}
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local now = now_ms(tonumber(ARGV[1]))
local per_minute, per_day = tonumber(ARGV[2]), tonumber(ARGV[3])
local state = redis.call('HMGET', KEYS[1], 'm', 'd', 'at')
local at = tonumber(state[3]) or now
local elapsed = 0
if now > at then elapsed = now - at; at = now end
local minute = math.min(refill(tonumber(state[1]) or per_minute, per_minute, 60000, elapsed) + 1, per_minute)
local day = math.min(refill(tonumber(state[2]) or per_day, per_day, 86400000, elapsed) + 1, per_day)
redis.call('HSET', KEYS[1], 'm', tostring(minute), 'd', tostring(day), 'at', tostring(at))
return 1
`;

/**
 * The failed-authentication bucket of an address. KEYS: its hash (tokens t, time at). ARGV: time or 0,
 * capacity, window ms, and 1 to charge a 401 or 0 only to check. Reply: tokens (-1: no state, go on),
 * time ms; a check of a bucket that is full again deletes it.
 */
export const ADDRESS = `${PRELUDE}
local now = now_ms(tonumber(ARGV[1]))
local capacity, window_ms, charge = tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4] == '1'
local state = redis.call('HMGET', KEYS[1], 't', 'at')
if state[1] == false and not charge then return { '-1', tostring(now) } end
local tokens = tonumber(state[1]) or capacity
local at = tonumber(state[2]) or now
local elapsed = 0
if now > at then elapsed = now - at; at = now end
tokens = refill(tokens, capacity, window_ms, elapsed)
if not charge then
  if tokens >= capacity - EPSILON then
    redis.call('DEL', KEYS[1])
    return { '-1', tostring(now) }
  end
else
  tokens = math.max(tokens - 1, 0)
end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'at', tostring(at))
redis.call('PEXPIRE', KEYS[1], math.ceil(ms_until_full(tokens, capacity, window_ms)) + 1000)
return { tostring(tokens), tostring(now) }
`;
