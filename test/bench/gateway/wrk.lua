-- test/bench/gateway/wrk.lua: wrk replays pre-signed requests (endpoint.js runs it).
--   wrk -t THREADS -c CONNECTIONS -d SECONDS -s wrk.lua URL -- PREFIX
-- Thread i reads PREFIX.i (written by sign.js: each request as its length, a newline, its
-- bytes) and sends its requests in turn over its connections, one in flight per connection,
-- starting again from the first when it has sent them all (the count of such wraps is
-- reported: for PutItem a wrap rewrites items instead of writing new ones). done() prints one
-- line "WRKJSON {...}": requests completed, duration, errors by kind, wraps, latency.
local threads = {}
local nthreads = 0

function setup(thread)
  thread:set("id", nthreads)
  nthreads = nthreads + 1
  table.insert(threads, thread)
end

function init(args)
  -- only read the file here: wrk starts each thread as soon as it is initialised, so a long
  -- init would let the first thread run ahead of the measured duration
  local f = assert(io.open(args[1] .. "." .. id, "rb"))
  data = f:read("*a")
  f:close()
  assert(#data > 0, "no requests in " .. args[1] .. "." .. id)
  pos = 1
  wraps = 0
end

function request()
  if pos > #data then
    pos = 1
    wraps = wraps + 1
  end
  local nl = data:find("\n", pos, true)
  local len = tonumber(data:sub(pos, nl - 1))
  pos = nl + 1 + len
  return data:sub(nl + 1, nl + len)
end

function done(summary, latency, requests)
  local w = 0
  for _, t in ipairs(threads) do
    w = w + t:get("wraps")
  end
  local e = summary.errors
  io.write(string.format('WRKJSON {"requests": %d, "duration_us": %d, "connect": %d, "read": %d, ' ..
    '"write": %d, "status": %d, "timeout": %d, "wraps": %d, "p50_us": %d, "p99_us": %d}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout, w,
    latency:percentile(50), latency:percentile(99)))
end
