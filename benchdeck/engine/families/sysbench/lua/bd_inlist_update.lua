#!/usr/bin/env sysbench
-- update-inlist: UPDATE sbtest SET c = <random string> WHERE id IN (<--points> ids),
-- one autocommit statement per event.

-- Find bd_common.lua next to this script, whatever the working directory.
package.path = (sysbench.cmdline.script_path:match("^(.*)/") or ".") .. "/?.lua;" .. package.path
local bd = require("bd_common")

bd.init({
   points = {"Number of ids in the IN-list", 10},
})

bd.query({
   sql = function(t)
      return string.format("UPDATE sbtest%d SET c = ? WHERE id IN (%s)", t, bd.marks(sysbench.opt.points))
   end,
   types = function() return bd.ints(sysbench.opt.points, {"char120"}) end,
   values = function(buf)
      buf[1] = sysbench.rand.string(bd.C_TEMPLATE)
      for i = 1, sysbench.opt.points do buf[i + 1] = bd.rand_id() end
      return buf
   end,
})
