// The limiter's decisions as one Redis script: a batch of operations (the admissions of the requests
// that arrived in one turn of the event loop, and the odd refund or forget), each decided in the order
// given, all run atomically by Redis in one round trip, so instances sharing Redis never interleave a
// read and a write of the same key, and two requests of one key in one batch are decided one after the
// other exactly as two calls would be. Time is Redis's own (`TIME`, read once per batch: its
// operations are decided at one instant), so instances with skewed clocks agree; a test may pass a time
// instead (ARGV[1] > 0).
// Every key gets an expiry at the moment it stops mattering (its buckets full again, its ban and
// refusal window over): absent state means full buckets, so nothing is lost when it expires, and
// Redis never grows with keys or addresses that have gone quiet.
//
// Numbers cross the boundary as strings: Redis turns a Lua number in a reply into an integer,
// which would drop the fractions of a token that a continuously refilled bucket holds.

/** The operations of a batch, one letter each, and the keys each names (in this order). */
export const OP = {
  /** A request with a usable key: the address's check, then (unless it refused) the key's admission. KEYS: address, hash, refusals. */
  admit: 'A',
  /** The key's admission alone. KEYS: hash, refusals. */
  admitKey: 'K',
  /** A request without a usable key: the address's check, then (unless it refused) one token charged. KEYS: address. */
  refuseAuthentication: 'F',
  /** The address's check alone. KEYS: address. */
  checkAddress: 'C',
  /** One token charged to the address. KEYS: address. */
  chargeFailedAuth: 'G',
  /** One token given back to each of the key's buckets. KEYS: hash. */
  refundKey: 'R',
  /** The key's buckets, refusals and ban deleted. KEYS: hash, refusals. */
  forgetKey: 'X',
} as const;
export type Op = (typeof OP)[keyof typeof OP];

/** Reply fields per operation, after the batch's time (the reply's first field). */
export const REPLY_FIELDS = 5;

/**
 * The batch. KEYS: the keys the batch names, each once. ARGV: time or 0, refusals before a ban, refusal
 * window ms, ban ms, failed-auth capacity, its window ms, and then the operations, in order, as one
 * JSON array: each operation's letter, the indexes in KEYS (from 1) of its keys, and then, for A, K
 * and R, the key's per-minute and per-day limits.
 * A batch thus crosses to Redis as its distinct keys and seven arguments, however many operations it
 * holds: each argument costs the client (building and encoding it, and a reply field parsing it back)
 * and Redis, while the JSON array is written by `JSON.stringify` and read by Redis's built-in
 * `cjson`, both native code, for about what the script spent reading the same values as arguments.
 * Reply: one text of words separated by single spaces (a word may be empty): the time in ms, then
 * REPLY_FIELDS per operation:
 *   A, K   outcome (admitted, refused, banned; A also `address` when the address refused), then for a
 *          key: minute tokens, day tokens, wait ms, 1 when this refusal started a ban; for `address`:
 *          the address's tokens
 *   F      `refused` (the address is spent) or `charged`, then the address's tokens
 *   C      `address`, then its tokens (-1: no state or full again, go on)
 *   G      `charged`, then its tokens
 *   R, X   `done`
 */
export const BATCH = `
local EPSILON = 1e-9
-- A number as text that reads back as the same number: tostring keeps 14 digits, which rounds a
-- count of tokens above 10^14 (an enterprise limit may be that large) and a time's microseconds.
local function num(x)
  return string.format('%.17g', x)
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

local given = tonumber(ARGV[1])
local now = given
if given <= 0 then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
end
local refusals_before_ban, refusal_window_ms, ban_ms = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local capacity, window_ms = tonumber(ARGV[5]), tonumber(ARGV[6])

-- Each key's state is read once a batch, kept in key_states while the batch's operations on it are
-- decided, and written once after the last: the script runs atomically, so nobody sees the steps
-- between, and a key that makes many requests in one turn costs Redis about what one request does.
local key_states = {}
local function key_state(hash)
  local state = key_states[hash]
  if state == nil then
    local fields = redis.call('HMGET', hash, 'm', 'd', 'at', 'ban')
    state = {
      minute = tonumber(fields[1]), day = tonumber(fields[2]), at = tonumber(fields[3]),
      ban = tonumber(fields[4]) or 0, exists = fields[1] ~= false, changed = false,
    }
    key_states[hash] = state
  end
  return state
end

local function keep_key(state, minute, day, at, ban, per_minute, per_day)
  state.minute, state.day, state.at, state.ban = minute, day, at, ban
  state.per_minute, state.per_day = per_minute, per_day
  state.exists, state.changed = true, true
end

-- A key's admission: both buckets, the refusal window, the ban.
local function admit_key(hash, refusals, per_minute, per_day)
  local state = key_state(hash)
  local minute = state.minute or per_minute
  local day = state.day or per_day
  local at = state.at or now
  local ban = state.ban
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
      redis.call('DEL', refusals)
    end
    if minute >= 1 - EPSILON and day >= 1 - EPSILON then
      minute = math.max(minute - 1, 0)
      day = math.max(day - 1, 0)
    else
      outcome = 'refused'
      wait = math.max(ms_until_token(minute, per_minute, 60000), ms_until_token(day, per_day, 86400000))
      redis.call('LPUSH', refusals, num(now))
      redis.call('LTRIM', refusals, 0, refusals_before_ban)
      redis.call('PEXPIRE', refusals, math.ceil(refusal_window_ms))
      if redis.call('LLEN', refusals) > refusals_before_ban then
        local oldest = tonumber(redis.call('LINDEX', refusals, refusals_before_ban))
        if now - oldest < refusal_window_ms then
          -- This refusal is still a plain one; it starts the ban for the requests after it.
          ban = now + ban_ms
          wait = math.max(wait, ban_ms)
          ban_started = '1'
        end
      end
    end
  end
  keep_key(state, minute, day, at, ban, per_minute, per_day)
  return outcome, num(minute), num(day), num(wait), ban_started
end

-- Gives back one token of each bucket (a request that counts against no key).
local function refund_key(hash, per_minute, per_day)
  local state = key_state(hash)
  if not state.exists then return end
  local at = state.at or now
  local elapsed = 0
  if now > at then elapsed = now - at; at = now end
  local minute = math.min(refill(state.minute or per_minute, per_minute, 60000, elapsed) + 1, per_minute)
  local day = math.min(refill(state.day or per_day, per_day, 86400000, elapsed) + 1, per_day)
  keep_key(state, minute, day, at, state.ban, per_minute, per_day)
end

-- The keys' states as the batch left them, each with an expiry at the moment it stops mattering.
local function write_keys()
  for hash, state in pairs(key_states) do
    if state.changed then
      local minute, day, ban = state.minute, state.day, state.ban
      redis.call('HSET', hash, 'm', num(minute), 'd', num(day), 'at', num(state.at), 'ban', num(ban))
      local matters_ms = math.max(
        ms_until_full(minute, state.per_minute, 60000), ms_until_full(day, state.per_day, 86400000), ban - now)
      redis.call('PEXPIRE', hash, math.ceil(matters_ms) + 1000)
    end
  end
end

local function keep_address(key, tokens, at)
  redis.call('HSET', key, 't', num(tokens), 'at', num(at))
  redis.call('PEXPIRE', key, math.ceil(ms_until_full(tokens, capacity, window_ms)) + 1000)
end

-- Addresses found without state in this batch, and not charged since: their next check needs no call.
local addresses_without_state = {}

-- The address's failed-authentication bucket, refilled, as tokens and time; -1 when it has no state
-- or is full again (then deleted): the address may go on.
local function check_address(key)
  if addresses_without_state[key] then return -1 end
  local state = redis.call('HMGET', key, 't', 'at')
  if state[1] == false then
    addresses_without_state[key] = true
    return -1
  end
  local at = tonumber(state[2]) or now
  local elapsed = 0
  if now > at then elapsed = now - at; at = now end
  local tokens = refill(tonumber(state[1]), capacity, window_ms, elapsed)
  if tokens >= capacity - EPSILON then
    redis.call('DEL', key)
    addresses_without_state[key] = true
    return -1
  end
  keep_address(key, tokens, at)
  return tokens
end

local function spent(tokens)
  return tokens >= 0 and tokens < 1 - EPSILON
end

-- One token charged to the address (a 401).
local function charge_address(key)
  addresses_without_state[key] = nil
  local state = redis.call('HMGET', key, 't', 'at')
  local tokens = tonumber(state[1]) or capacity
  local at = tonumber(state[2]) or now
  local elapsed = 0
  if now > at then elapsed = now - at; at = now end
  tokens = math.max(refill(tokens, capacity, window_ms, elapsed) - 1, 0)
  keep_address(key, tokens, at)
  return tokens
end

local reply = { num(now) }
local n = 1
local function put(a, b, c, d, e)
  reply[n + 1], reply[n + 2], reply[n + 3], reply[n + 4], reply[n + 5] = a, b or '', c or '', d or '', e or ''
  n = n + 5
end
local words = cjson.decode(ARGV[7])
local count = #words
local function key(i)
  return KEYS[words[i]]
end
local i = 1
while i <= count do
  local op = words[i]
  if op == 'A' then
    local address = key(i + 1)
    local tokens = check_address(address)
    if spent(tokens) then
      put('address', num(tokens))
    else
      put(admit_key(key(i + 2), key(i + 3), words[i + 4], words[i + 5]))
    end
    i = i + 6
  elseif op == 'K' then
    put(admit_key(key(i + 1), key(i + 2), words[i + 3], words[i + 4]))
    i = i + 5
  elseif op == 'F' then
    local address = key(i + 1)
    local tokens = check_address(address)
    if spent(tokens) then
      put('refused', num(tokens))
    else
      put('charged', num(charge_address(address)))
    end
    i = i + 2
  elseif op == 'C' then
    put('address', num(check_address(key(i + 1))))
    i = i + 2
  elseif op == 'G' then
    put('charged', num(charge_address(key(i + 1))))
    i = i + 2
  elseif op == 'R' then
    refund_key(key(i + 1), words[i + 2], words[i + 3])
    put('done')
    i = i + 4
  elseif op == 'X' then
    local hash, refusals = key(i + 1), key(i + 2)
    redis.call('DEL', hash, refusals)
    key_states[hash] = nil
    put('done')
    i = i + 3
  else
    return redis.error_reply('unknown limiter operation ' .. tostring(op))
  end
end
write_keys()
return table.concat(reply, ' ')
`;
