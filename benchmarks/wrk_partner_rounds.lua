-- wrk script: a partner casino POSTs rounds for its players, each request signed (API.md). Lua here
-- has no HMAC, so benchmarks/http_rounds.py signs the requests beforehand: BENCH_SIGNED holds one
-- file per thread (BENCH_SIGNED .. index), a line per request: "timestamp nonce signature key".
-- Thread i plays for partner player BENCH_EXTERNAL_IDS[i]; run with as many threads as connections.
local external_ids = {}
for id in string.gmatch(os.getenv("BENCH_EXTERNAL_IDS") or "", "%S+") do external_ids[#external_ids + 1] = id end
local table_id = os.getenv("BENCH_TABLE") or "1"
local partner_key = os.getenv("BENCH_PARTNER_KEY") or ""
local prefix = os.getenv("BENCH_SIGNED") or ""
thread_id = 0
local threads_made = 0

function setup(thread)
  thread:set("thread_id", threads_made)
  threads_made = threads_made + 1
end

local signed = {}
local next_line = 1
local path, body

function init(args)
  for line in io.lines(prefix .. thread_id) do signed[#signed + 1] = line end
  path = "/api/v1/partner/players/" .. external_ids[thread_id % #external_ids + 1] .. "/rounds/"
  body = '{"table": "' .. table_id .. '", "main_bet": 100}'
end

function request()
  local line = signed[next_line]
  if line == nil then
    io.stderr:write("thread " .. thread_id .. " ran out of signed requests\n")
    line = signed[#signed]  -- a replayed nonce: 401, counted as a non-2xx answer
  else
    next_line = next_line + 1
  end
  local timestamp, nonce, signature, key = string.match(line, "(%S+) (%S+) (%S+) (%S+)")
  local headers = {
    ["Content-Type"] = "application/json",
    ["X-Partner-Key"] = partner_key,
    ["X-Timestamp"] = timestamp,
    ["X-Nonce"] = nonce,
    ["X-Signature"] = signature,
    ["Idempotency-Key"] = key,
  }
  return wrk.format("POST", path, headers, body)
end

local statuses = {}
function response(status, headers, body)
  if status ~= 201 and not statuses[status] then
    statuses[status] = true
    io.stderr:write("status " .. status .. ": " .. string.sub(body, 1, 200) .. "\n")
  end
end
