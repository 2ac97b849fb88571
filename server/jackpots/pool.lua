-- croupier jackpot pool: every money movement of a pool is ONE call of this script
-- (digest jackpots.md 5.5). All keys of a pool share the hash tag jp:{pool}:..., so the
-- script is cluster-safe:
--   KEYS[1] jp:{pool}:state   hash: meter reserve paid seed contributions house version
--                                    + config: regime prize_bp reserve_bp seed_level
--                                    shortfall fixed_source
--   KEYS[2] jp:{pool}:audit   stream: one entry per commit (XADD in the same script)
--   KEYS[3] idempotency record: jp:{pool}:round:{round} (hash c:<wager> "prize reserve",
--           r:<wager>, void) | jp:{pool}:award:{round}:{award} | jp:{pool}:reset:{id}
-- ARGV[1] is the operation, or 'op|EPOCH|VERSION': a guard (server/store/witness.py): the
-- pool must still have the epoch it was created with and a version not below VERSION (the
-- last one this server saw), else nothing is written and the reply is {'lost', epoch,
-- version}: Redis restarted from an older snapshot, or the pool was replaced. Amounts are integer cents below 2^53; the only products
-- (contribution split) are guarded below 2^53 by the caller, so doubles are exact.
-- The arithmetic mirrors server/jackpots/model.py (fund_award, PoolConfig.split).

local state, audit, record = KEYS[1], KEYS[2], KEYS[3]
local op, guard_epoch, guard_version = ARGV[1], nil, nil
do
  local o, e, v = string.match(ARGV[1], '^([^|]+)|([^|]*)|(%d+)$')
  if o then op, guard_epoch, guard_version = o, e, tonumber(v) end
end

local function int(x) return string.format('%d', x) end

local function get(field) return tonumber(redis.call('HGET', state, field)) end

local function xadd(kind, round_id, ref, dm, dr, dp, dc, dh, extra_k, extra_v)
  local ver = redis.call('HINCRBY', state, 'version', 1)
  local meter, reserve = get('meter'), get('reserve')
  local fields = {audit, '*', 'op', kind, 'round', round_id, 'ref', ref,
    'dm', int(dm), 'dr', int(dr), 'dp', int(dp), 'dc', int(dc), 'dh', int(dh),
    'ver', int(ver), 'meter', int(meter), 'reserve', int(reserve)}
  if extra_k then
    table.insert(fields, extra_k)
    table.insert(fields, int(extra_v))
  end
  redis.call('XADD', unpack(fields))
  return ver
end

local function apply(kind, round_id, ref, dm, dr, dp, dc, dh, extra_k, extra_v)
  if dm + dr + dp ~= dc + dh then return redis.error_reply('unbalanced commit') end
  if dm ~= 0 then redis.call('HINCRBY', state, 'meter', int(dm)) end
  if dr ~= 0 then redis.call('HINCRBY', state, 'reserve', int(dr)) end
  if dp ~= 0 then redis.call('HINCRBY', state, 'paid', int(dp)) end
  if dc ~= 0 then redis.call('HINCRBY', state, 'contributions', int(dc)) end
  if dh ~= 0 then redis.call('HINCRBY', state, 'house', int(dh)) end
  return xadd(kind, round_id, ref, dm, dr, dp, dc, dh, extra_k, extra_v)
end

local function epoch(kind, ref, meter, reserve)
  redis.call('HSET', state, 'meter', int(meter), 'reserve', int(reserve),
    'seed', int(meter + reserve), 'paid', 0, 'contributions', 0, 'house', 0)
  return xadd(kind, '', ref, 0, 0, 0, 0, 0, 'seed', meter + reserve)
end

if op == 'open' then
  -- ARGV: regime prize_bp reserve_bp seed_level shortfall fixed_source meter reserve epoch
  if redis.call('EXISTS', state) == 1 then return {'pool_exists', get('version')} end
  redis.call('HSET', state, 'regime', ARGV[2], 'prize_bp', ARGV[3], 'reserve_bp', ARGV[4],
    'seed_level', ARGV[5], 'shortfall', ARGV[6], 'fixed_source', ARGV[7], 'version', 0,
    'epoch', ARGV[10] or '')
  return {'applied', epoch('open', 'open', tonumber(ARGV[8]), tonumber(ARGV[9]))}
end

if redis.call('EXISTS', state) == 0 then return {'no_pool', 0} end

if guard_epoch then
  local epoch = redis.call('HGET', state, 'epoch') or ''
  if epoch ~= guard_epoch or get('version') < guard_version then
    return {'lost', epoch, get('version')}
  end
end

if op == 'reset' then
  -- ARGV: reset_id meter|'' reserve|'' [regime prize_bp reserve_bp seed_level shortfall fixed]
  if redis.call('EXISTS', record) == 1 then return {'duplicate', get('version')} end
  if ARGV[5] then
    redis.call('HSET', state, 'regime', ARGV[5], 'prize_bp', ARGV[6], 'reserve_bp', ARGV[7],
      'seed_level', ARGV[8], 'shortfall', ARGV[9], 'fixed_source', ARGV[10])
  end
  local meter = tonumber(ARGV[3]) or get('seed_level')
  local reserve = tonumber(ARGV[4]) or get('reserve')
  local ver = epoch('reset', ARGV[2], meter, reserve)
  redis.call('SET', record, int(ver))
  return {'applied', ver}
end

local function contribute(round_id, wager, amount)
  local credited = redis.call('HGET', record, 'c:' .. wager)
  if credited then
    local sp = string.find(credited, ' ')
    return 'duplicate', tonumber(string.sub(credited, 1, sp - 1)),
      tonumber(string.sub(credited, sp + 1)), get('version')
  end
  if redis.call('HEXISTS', record, 'void') == 1
      or redis.call('HEXISTS', record, 'r:' .. wager) == 1 then
    return 'refunded', 0, 0, get('version')
  end
  local pbp, rbp = get('prize_bp'), get('reserve_bp')
  local pn = amount * pbp
  local prize = (pn - pn % 10000) / 10000
  local reserve
  if pbp + rbp == 10000 then
    reserve = amount - prize
  else
    local rn = amount * rbp
    reserve = (rn - rn % 10000) / 10000
  end
  redis.call('HSET', record, 'c:' .. wager, int(prize) .. ' ' .. int(reserve))
  local ver = apply('contribute', round_id, wager, prize, reserve, 0, prize + reserve, 0,
    'wager', amount)
  return 'applied', prize, reserve, ver
end

if op == 'contribute' then
  -- ARGV: round_id (wager_id amount)+ : one round's coin-in, each wager on its own
  -- (own idempotency, own audit entry); reply: (status prize reserve version)+
  local round_id, out = ARGV[2], {}
  for i = 3, #ARGV, 2 do
    local status, prize, reserve, ver = contribute(round_id, ARGV[i], tonumber(ARGV[i + 1]))
    table.insert(out, status)
    table.insert(out, prize)
    table.insert(out, reserve)
    table.insert(out, ver)
  end
  return out
end

if op == 'award' then
  -- ARGV: round_id award_id expected_version|'' prizes_text n (kind amount){n}
  -- kinds arrive ordered: progressive, fixed, house (service.order_prizes)
  local round_id, award_id = ARGV[2], ARGV[3]
  if redis.call('EXISTS', record) == 1 then
    local r = redis.call('HMGET', record, 'fm', 'fr', 'house', 'topup', 'ver', 'prizes')
    return {'duplicate', tonumber(r[1]), tonumber(r[2]), tonumber(r[3]), tonumber(r[4]),
      tonumber(r[5]), r[6]}
  end
  local version = get('version')
  if ARGV[4] ~= '' and tonumber(ARGV[4]) ~= version then
    return {'conflict', 0, 0, 0, 0, version, ''}
  end
  local meter, reserve = get('meter'), get('reserve')
  local meter0, reserve0 = meter, reserve
  local shortfall, fixed_source = redis.call('HGET', state, 'shortfall'),
    redis.call('HGET', state, 'fixed_source')
  local paid, house, from_meter = 0, 0, 0
  local n = tonumber(ARGV[6])
  for i = 0, n - 1 do
    local kind, amount = ARGV[7 + 2 * i], tonumber(ARGV[8 + 2 * i])
    paid = paid + amount
    if kind == 'progressive' then
      local take = math.min(amount, meter)
      meter = meter - take
      from_meter = from_meter + take
      local short = amount - take
      if shortfall == 'reserve' then
        local from_res = math.min(short, reserve)
        reserve = reserve - from_res
        short = short - from_res
      end
      house = house + short
    elseif kind == 'fixed' and fixed_source == 'reserve' then
      local from_res = math.min(amount, reserve)
      reserve = reserve - from_res
      house = house + amount - from_res
    else
      house = house + amount
    end
  end
  local seed_level, topped = get('seed_level'), 0
  if meter < seed_level then
    topped = seed_level - meter
    local from_res = math.min(topped, reserve)
    reserve = reserve - from_res
    house = house + topped - from_res
    meter = seed_level
  end
  local ver = apply('award', round_id, award_id, meter - meter0, reserve - reserve0, paid, 0,
    house, 'topup', topped)
  local from_reserve = reserve0 - reserve
  redis.call('HSET', record, 'fm', int(from_meter), 'fr', int(from_reserve),
    'house', int(house), 'topup', int(topped), 'ver', int(ver), 'prizes', ARGV[5])
  return {'applied', from_meter, from_reserve, house, topped, ver, ARGV[5]}
end

local function reverse(kind, round_id, wager)
  local credited = redis.call('HGET', record, 'c:' .. wager)
  local sp = string.find(credited, ' ')
  local prize = tonumber(string.sub(credited, 1, sp - 1))
  local reserve = tonumber(string.sub(credited, sp + 1))
  redis.call('HSET', record, 'r:' .. wager, '1')
  -- a credit already spent (by a top-up or a prize) cannot be taken back: the house covers it
  local dm, dr = -math.min(prize, get('meter')), -math.min(reserve, get('reserve'))
  local house = prize + dm + reserve + dr
  apply(kind, round_id, wager, dm, dr, 0, -(prize + reserve), house)
  return prize, reserve
end

if op == 'refund' then
  -- ARGV: round_id wager_id
  local round_id, wager = ARGV[2], ARGV[3]
  if redis.call('HEXISTS', record, 'r:' .. wager) == 1 then
    return {'duplicate', 0, 0, 0, get('version')}
  end
  if redis.call('HEXISTS', record, 'c:' .. wager) == 0 then
    redis.call('HSET', record, 'r:' .. wager, '1')
    return {'none', 0, 0, 0, get('version')}
  end
  local prize, reserve = reverse('refund', round_id, wager)
  return {'applied', prize, reserve, 1, get('version')}
end

if op == 'void' then
  -- ARGV: round_id. Reverses every credited, unrefunded wager, in wager id order.
  local round_id = ARGV[2]
  if redis.call('HEXISTS', record, 'void') == 1 then
    return {'duplicate', 0, 0, 0, get('version')}
  end
  redis.call('HSET', record, 'void', '1')
  local fields = redis.call('HKEYS', record)
  table.sort(fields)  -- wager order, as the in-memory backend
  local total_p, total_r, count = 0, 0, 0
  for _, f in ipairs(fields) do
    if string.sub(f, 1, 2) == 'c:' then
      local wager = string.sub(f, 3)
      if redis.call('HEXISTS', record, 'r:' .. wager) == 0 then
        local p, r = reverse('void', round_id, wager)
        total_p, total_r, count = total_p + p, total_r + r, count + 1
      end
    end
  end
  local status = 'none'
  if count > 0 then status = 'applied' end
  return {status, total_p, total_r, count, get('version')}
end

return redis.error_reply('unknown jackpot operation ' .. tostring(op))
