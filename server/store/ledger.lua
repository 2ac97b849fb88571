-- croupier ledger: one call of this script commits a group of batches atomically
-- (server/store/redis.py). Every key is under the one hash tag {ledger}, so the script runs
-- on Redis Cluster too:
--   KEYS[1] ledger:{ledger}:meta       hash: epoch, version
--   KEYS[2] ledger:{ledger}:balances   hash: account -> cents
--   KEYS[3] ledger:{ledger}:transfers  hash: transfer id -> its JSON [id, from, to, "cents",
--                                      kind, round|null] (the idempotency record)
--   KEYS[4] ledger:{ledger}:rounds     hash: ref -> open | settled | voided
--   KEYS[5] ledger:{ledger}:owners     hash: ref -> JSON [table, owner]
--   KEYS[6] ledger:{ledger}:open       hash: open round ref -> its transfer ids, one a line
--                                      ('' before the first); gone once the round closes
--   KEYS[7] ledger:{ledger}:facts      hash: what a server keeps (dev secret, request ids)
--   KEYS[8] ledger:{ledger}:notes      hash: note id -> JSON (the cashier's log)
--   KEYS[9] ledger:{ledger}:fence      hash: table -> its fencing token (server/room/directory.py)
--   KEYS[10] ledger:{ledger}:wfence    hash: account -> its wallet token (the wallet's owner)
--   KEYS[11] ledger:{ledger}:chain     list: one entry per call that appended anything
--                                      (server/store/chain.py): JSON [n, prev, hash, rows],
--                                      rows [[stream, key, sha1 of the row's text], ...];
--                                      meta chain_n and chain_head are its length and head
--   KEYS[12] ledger:{ledger}:jgame     hash: round -> its game (the journal's index)
-- ARGV[1] op: 'commit', 'init', 'journal' or 'adopt'.
-- init:   ARGV[2] a new epoch; sets it only on an empty store; reply {epoch, version}.
-- commit: ARGV[2] the epoch this server works on, ARGV[3] the last version it saw, then one
--         JSON batch per argument ({"o": opened, "t": transfers, "c": closed, "n": notes}).
--         Reply {'ok', version, refused..., chain_n, chain_head} or {'lost', epoch|'',
--         version}: nothing written
--         when lost. A batch may also carry "f": [table, token], "w": {account: token} and
--         "z": 1 (a deployment's directory, server/room/directory.py); such a batch is REFUSED
--         (nothing of it written; its 0-based index listed after the version) when the
--         table's current fencing token or a debited wallet's current token is higher than
--         the one it carries (a stale owner), or, with "z", when a transfer not applied
--         before would take a wallet or a stake below zero.
-- journal: ARGV[2..] one JSON record each: [round, seq, text, start] (start: null, or
--         [table, game, at, [players]] for a round's first record): HSETNX into the round's
--         journal hash (ledger:{ledger}:journal:ROUND), its indexes, and one chain entry for
--         the records it wrote. Reply {chain_n, chain_head}.
-- Every reply of commit and journal ends with the chain's length and head.
-- Amounts travel as decimal strings: HINCRBY does the integer arithmetic, no Lua doubles.

local meta, balances, transfers, rounds = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local owners, open, facts, notes = KEYS[5], KEYS[6], KEYS[7], KEYS[8]
local fence, wfence, chain, jgame = KEYS[9], KEYS[10], KEYS[11], KEYS[12]
local prefix = string.sub(meta, 1, -5)  -- 'ledger:{ledger}:': every key of the one hash tag

-- one chain entry for the rows this call wrote: {stream, key, text} each ({stream, key,
-- nil, digest}: the digest given, adopt)
local function link(rows)
  if #rows == 0 then
    return
  end
  local head = redis.call('HGET', meta, 'chain_head') or string.rep('0', 40)
  local lines, listed = {head}, {}
  for _, r in ipairs(rows) do
    local digest = r[4] or redis.sha1hex(r[3])
    table.insert(lines, r[1] .. ':' .. r[2] .. ':' .. digest)
    table.insert(listed, {r[1], r[2], digest})
  end
  local hash = redis.sha1hex(table.concat(lines, '\n'))
  local n = redis.call('HINCRBY', meta, 'chain_n', 1)
  redis.call('RPUSH', chain, cjson.encode({n, head, hash, listed}))
  redis.call('HSET', meta, 'chain_head', hash)
end

local function head()
  return {redis.call('HGET', meta, 'chain_n') or '0', redis.call('HGET', meta, 'chain_head') or ''}
end

if ARGV[1] == 'init' then
  redis.call('HSETNX', meta, 'version', 0)
  redis.call('HSETNX', meta, 'epoch', ARGV[2])
  return redis.call('HMGET', meta, 'epoch', 'version')
end

-- adopt: a store made before the chain (ARGV[2]: JSON [[stream, key, digest], ...], every
-- row it held, read by the server): its first entry lists them; nothing if it has a chain.
if ARGV[1] == 'adopt' then
  if not redis.call('HGET', meta, 'chain_n') then
    local rows = {}
    for _, r in ipairs(cjson.decode(ARGV[2])) do
      table.insert(rows, {r[1], r[2], nil, r[3]})
    end
    link(rows)
  end
  return head()
end

if ARGV[1] == 'journal' then
  local rows = {}
  for i = 2, #ARGV do
    local r = cjson.decode(ARGV[i])
    local ref, seq, text, start = r[1], r[2], r[3], r[4]
    if redis.call('HSETNX', prefix .. 'journal:' .. ref, tostring(seq), text) == 1 then
      table.insert(rows, {'journal', ref .. '|' .. tostring(seq), text})
    end
    if start ~= cjson.null then
      redis.call('ZADD', prefix .. 'jtable:' .. start[1], start[3], ref)
      redis.call('HSET', jgame, ref, start[2])
      for _, account in ipairs(start[4]) do
        redis.call('ZADD', prefix .. 'jplayer:' .. account, start[3], ref)
      end
    end
  end
  link(rows)
  return head()
end

local epoch = redis.call('HGET', meta, 'epoch')
local version = tonumber(redis.call('HGET', meta, 'version') or '0')
if not epoch then return {'lost', '', 0} end
if epoch ~= ARGV[2] or version < tonumber(ARGV[3]) then
  return {'lost', epoch, version}
end

-- Redis does not roll a script back when it fails half-way: read and check every batch
-- first, write only then (a bad argument fails the whole group with nothing written).
local function text(x) return type(x) == 'string' end
local batches = {}
for i = 4, #ARGV do
  local batch = cjson.decode(ARGV[i])
  batch.rows = {}
  for _, raw in ipairs(batch.t) do
    local t = cjson.decode(raw)
    if not (text(t[1]) and text(t[2]) and text(t[3]) and text(t[5])
        and text(t[4]) and string.match(t[4], '^[1-9][0-9]*$') and #t[4] <= 15
        and (t[6] == cjson.null or text(t[6]))) then
      return redis.error_reply('bad transfer ' .. raw)
    end
    table.insert(batch.rows, {raw, t})
  end
  for _, r in ipairs(batch.o) do
    if not (text(r[1]) and text(r[2]) and text(r[3])) then
      return redis.error_reply('bad round')
    end
  end
  for _, c in ipairs(batch.c) do
    if not (text(c[1]) and (c[2] == 'settled' or c[2] == 'voided')) then
      return redis.error_reply('bad round close')
    end
  end
  for _, n in ipairs(batch.n) do
    if not (text(n[1]) and text(n[3]) and text(n[4]) and (n[2] == cjson.null or text(n[2])))
    then
      return redis.error_reply('bad note')
    end
  end
  table.insert(batches, batch)
end

-- a stale owner's batch (or one that would overdraw a player) writes nothing
local function stale(batch)
  if batch.f then
    local now = redis.call('HGET', fence, batch.f[1])
    if now and tonumber(now) > tonumber(batch.f[2]) then return true end
  end
  if batch.w then
    for account, token in pairs(batch.w) do
      local now = redis.call('HGET', wfence, account)
      if now and tonumber(now) > tonumber(token) then return true end
    end
  end
  if batch.z then
    local delta = {}
    for _, row in ipairs(batch.rows) do
      local t = row[2]
      if redis.call('HEXISTS', transfers, t[1]) == 0 then
        local amount = tonumber(t[4])
        delta[t[2]] = (delta[t[2]] or 0) - amount
        delta[t[3]] = (delta[t[3]] or 0) + amount
        local source = t[2]
        if string.sub(source, 1, 7) == 'wallet:' or string.find(source, ':stake:', 1, true) then
          local have = tonumber(redis.call('HGET', balances, source) or '0')
          if have + delta[source] < 0 then return true end
        end
      end
    end
  end
  return false
end

local refused = {}
local written = {}  -- what the chain's entry for this call lists
for index, batch in ipairs(batches) do
  if stale(batch) then
    table.insert(refused, index - 1)
    batch = {o = {}, rows = {}, c = {}, n = {}}  -- Lua 5.1: no goto; write nothing of it
  end
  for _, r in ipairs(batch.o) do
    if redis.call('HSETNX', rounds, r[1], 'open') == 1 then
      redis.call('HSET', owners, r[1], cjson.encode({r[2], r[3]}))
      redis.call('HSET', open, r[1], '')
      local key = 'open|' .. r[1] .. '|' .. r[2] .. '|' .. r[3]
      table.insert(written, {'round', key, key})
    end
  end
  for _, row in ipairs(batch.rows) do
    local raw, t = row[1], row[2]
    if redis.call('HSETNX', transfers, t[1], raw) == 1 then
      table.insert(written, {'transfer', t[1], raw})
      redis.call('HINCRBY', balances, t[2], '-' .. t[4])
      redis.call('HINCRBY', balances, t[3], t[4])
      local ref = t[6]
      local ids = ref ~= cjson.null and redis.call('HGET', open, ref)
      if ids then
        redis.call('HSET', open, ref, ids == '' and t[1] or (ids .. '\n' .. t[1]))
      end
    end
  end
  for _, c in ipairs(batch.c) do
    if redis.call('HGET', rounds, c[1]) == 'open' then
      redis.call('HSET', rounds, c[1], c[2])
      redis.call('HDEL', open, c[1])
      local key = 'close|' .. c[1] .. '|' .. c[2]
      table.insert(written, {'round', key, key})
    end
  end
  for _, n in ipairs(batch.n) do
    if n[2] ~= cjson.null then redis.call('HSET', facts, n[2], n[3]) end
    if redis.call('HSETNX', notes, n[1], n[4]) == 1 then
      table.insert(written, {'note', n[1], n[4]})
    end
  end
end
link(written)
local reply = {'ok', redis.call('HINCRBY', meta, 'version', #ARGV - 3)}
for _, index in ipairs(refused) do table.insert(reply, index) end
local h = head()
table.insert(reply, h[1])
table.insert(reply, h[2])
return reply
