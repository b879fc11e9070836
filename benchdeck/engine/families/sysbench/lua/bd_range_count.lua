#!/usr/bin/env sysbench
-- read-only-count: SELECT COUNT(c) over a primary-key range of --range-size rows, one
-- statement per event (the other read-only-* variants use stock oltp_read_only).

-- Find bd_common.lua next to this script, whatever the working directory.
package.path = (sysbench.cmdline.script_path:match("^(.*)/") or ".") .. "/?.lua;" .. package.path
local bd = require("bd_common")

bd.init({})

bd.query({
   sql = function(t)
      return string.format("SELECT COUNT(c) FROM sbtest%d WHERE id BETWEEN ? AND ?", t)
   end,
   types = function() return bd.ints(2) end,
   values = function(buf)
      buf[1] = bd.rand_range_start()
      buf[2] = buf[1] + sysbench.opt.range_size - 1
      return buf
   end,
})
