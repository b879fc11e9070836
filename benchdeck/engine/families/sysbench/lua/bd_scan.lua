#!/usr/bin/env sysbench
-- scan / scan.warm: read every row of one table and return none. LENGTH(c) is never
-- negative, and no index can answer the predicate, so the server walks the whole table.
-- Throughput is table rows / average event latency (not queries per second).

-- Find bd_common.lua next to this script, whatever the working directory.
package.path = (sysbench.cmdline.script_path:match("^(.*)/") or ".") .. "/?.lua;" .. package.path
local bd = require("bd_common")

bd.init({})

bd.query({
   sql = function(t)
      return string.format("SELECT * FROM sbtest%d WHERE LENGTH(c) < 0", t)
   end,
   types = function() return {} end,
   values = function(buf) return buf end,
})
