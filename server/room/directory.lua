-- croupier table directory (server/room/directory.py): leases with fencing tokens. Every key is
-- under the ledger's hash tag {ledger} (one deployment = one ledger), so ledger.lua reads
-- the same fence map in the same slot:
--   KEYS[1] ledger:{ledger}:dir:tables  hash: table -> its config (JSON)
--   KEYS[2] ledger:{ledger}:dir:leases  hash: table -> JSON {owner, url, token, until}
--   KEYS[3] ledger:{ledger}:fence       hash: table -> its fencing token (only grows)
--   KEYS[4] ledger:{ledger}:dir:procs   hash: instance -> JSON {url, until}
-- Times are Redis's own clock (TIME, in ms): no server's clock decides a lease.
-- ARGV[1] op:
--   claim    ARGV[2] table, [3] instance, [4] url, [5] ttl ms, [6] config JSON ('' to keep),
--            [7] a dead instance this one replaces ('' none): the table's lease, if it is
--            free, expired, ours or the dead one's: a new token (HINCRBY) -> {token};
--            else {0, owner, url}
--   renew    ARGV[2] instance, [3] url, [4] ttl ms, then table, token pairs: each lease
--            still ours with that token (and the fence at that token) runs ttl more; the
--            process's own entry too -> the tables whose lease is lost
--   release  ARGV[2] instance, then table, token pairs: delete those leases still ours
--   orphans  -> the tables of the directory with no live lease, then the live instances

local tables, leases, fence, procs = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local op = ARGV[1]

if op == 'claim' then
  local id, instance, url, ttl = ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
  local raw = redis.call('HGET', leases, id)
  if raw then
    local lease = cjson.decode(raw)
    if lease.owner ~= instance and lease.owner ~= ARGV[7] and lease['until'] > now then
      return {0, lease.owner, lease.url}
    end
  end
  local token = redis.call('HINCRBY', fence, id, 1)
  redis.call('HSET', leases, id, cjson.encode(
    {owner = instance, url = url, token = token, ['until'] = now + ttl}))
  if ARGV[6] ~= '' then redis.call('HSET', tables, id, ARGV[6]) end
  return {token}
end

if op == 'renew' then
  local instance, ttl = ARGV[2], tonumber(ARGV[4])
  redis.call('HSET', procs, instance, cjson.encode({url = ARGV[3], ['until'] = now + ttl}))
  local lost = {}
  for i = 5, #ARGV, 2 do
    local id, token = ARGV[i], tonumber(ARGV[i + 1])
    local raw = redis.call('HGET', leases, id)
    local lease = raw and cjson.decode(raw)
    if lease and lease.owner == instance and lease.token == token
        and tonumber(redis.call('HGET', fence, id) or '0') == token then
      lease['until'] = now + ttl
      redis.call('HSET', leases, id, cjson.encode(lease))
    else
      table.insert(lost, id)
    end
  end
  return lost
end

if op == 'release' then
  local instance = ARGV[2]
  for i = 3, #ARGV, 2 do
    local raw = redis.call('HGET', leases, ARGV[i])
    local lease = raw and cjson.decode(raw)
    if lease and lease.owner == instance and lease.token == tonumber(ARGV[i + 1]) then
      redis.call('HDEL', leases, ARGV[i])
    end
  end
  if #ARGV == 2 then redis.call('HDEL', procs, instance) end
  return 1
end

if op == 'orphans' then
  local out = {}
  for _, id in ipairs(redis.call('HKEYS', tables)) do
    local raw = redis.call('HGET', leases, id)
    if not raw or cjson.decode(raw)['until'] <= now then table.insert(out, id) end
  end
  local live = {}
  local all = redis.call('HGETALL', procs)
  for i = 1, #all, 2 do
    if cjson.decode(all[i + 1])['until'] > now then table.insert(live, all[i]) end
  end
  return {out, live}
end

return redis.error_reply('unknown op ' .. tostring(op))
