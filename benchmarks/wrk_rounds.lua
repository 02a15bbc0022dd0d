-- wrk script: POST a round with a fresh Idempotency-Key each request. Run with as many threads as
-- connections: each thread is one client, a player of its own (its token), as at a real table.
local counter = 0
local tokens = {}
for token in string.gmatch(os.getenv("BENCH_TOKENS") or "", "%S+") do tokens[#tokens + 1] = token end
local table_id = os.getenv("BENCH_TABLE") or "1"
thread_id = 0  -- a global: setup() gives each thread its own through thread:set
local threads_made = 0

function setup(thread)
  thread:set("thread_id", threads_made)
  threads_made = threads_made + 1
end

function request()
  counter = counter + 1
  local token = tokens[thread_id % #tokens + 1]
  local headers = {
    ["Authorization"] = "Token " .. token,
    ["Content-Type"] = "application/json",
    ["Idempotency-Key"] = "wrk-" .. thread_id .. "-" .. counter .. "-" .. os.time(),
  }
  return wrk.format("POST", "/api/v1/rounds/", headers, '{"table": "' .. table_id .. '", "main_bet": 100}')
end

local statuses = {}
function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
  if status ~= 201 and not statuses["shown" .. status] then
    statuses["shown" .. status] = true
    io.stderr:write("status " .. status .. ": " .. string.sub(body, 1, 200) .. "\n")
  end
end
