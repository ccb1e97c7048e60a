-- test/bench/citus/nodes.lua: wrk sends DynamoDB GetItem or PutItem requests (unsigned: the
-- gateways of test/bench/citus/nodes.sh run without --credentials) on random keys of the
-- table, over keep-alive connections, one request in flight per connection.
--   wrk -t T -c C -d SECONDS -s nodes.lua URL -- get|put TABLE KEYS
-- done() prints "WRKJSON {...}": requests, duration, errors.
local op, tbl, nkeys

function init(args)
  op = args[1]
  tbl = args[2]
  nkeys = tonumber(args[3])
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16) % 100000)
end

function request()
  local k = math.random(1, nkeys)
  local body, target
  if op == "get" then
    target = "DynamoDB_20120810.GetItem"
    body = string.format('{"TableName":"%s","Key":{"pk":{"S":"K#%d"},"sk":{"S":"S"}}}', tbl, k)
  else
    target = "DynamoDB_20120810.PutItem"
    body = string.format('{"TableName":"%s","Item":{"pk":{"S":"K#%d"},"sk":{"S":"S"},"v":{"N":"%d"},"pad":{"S":"%s"}}}',
      tbl, k, math.random(1, 1000000), string.rep("x", 100))
  end
  return wrk.format("POST", "/", {["Content-Type"] = "application/x-amz-json-1.0", ["X-Amz-Target"] = target}, body)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRKJSON {"requests": %d, "duration_us": %d, "errors": %d, "status": %d, "p50_us": %d, "p99_us": %d}\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50), latency:percentile(99)))
end
