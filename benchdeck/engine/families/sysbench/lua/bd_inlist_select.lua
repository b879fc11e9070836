#!/usr/bin/env sysbench
-- random-points / hot-points: SELECT c ... WHERE id IN (<--points> ids).
-- Random points draw each id anew; hot points always ask for the same small set of
-- adjacent ids in the middle of the table (cached, contended).

-- Find bd_common.lua next to this script, whatever the working directory.
package.path = (sysbench.cmdline.script_path:match("^(.*)/") or ".") .. "/?.lua;" .. package.path
local bd = require("bd_common")

bd.init({
   points = {"Number of ids in the IN-list", 10},
   hot_points = {"Always use the same adjacent ids (middle of the table)", false},
})

bd.query({
   sql = function(t)
      return string.format("SELECT c FROM sbtest%d WHERE id IN (%s)", t, bd.marks(sysbench.opt.points))
   end,
   types = function() return bd.ints(sysbench.opt.points) end,
   values = function(buf)
      local n = sysbench.opt.points
      local first = math.floor(math.max(0, sysbench.opt.table_size - n) / 2)
      for i = 1, n do
         buf[i] = sysbench.opt.hot_points and (first + i) or bd.rand_id()
      end
      return buf
   end,
})
