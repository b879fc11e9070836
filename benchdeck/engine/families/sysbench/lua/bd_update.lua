#!/usr/bin/env sysbench
-- update-zipf: UPDATE sbtest SET c = <random string> WHERE id = ?, one autocommit
-- statement per event, with ids from --id-dist (zipfian: a few hot rows get most updates).
-- Same statement as stock oltp_update_non_index, which cannot draw zipfian ids on
-- sysbench 1.0.20.

-- Find bd_common.lua next to this script, whatever the working directory.
package.path = (sysbench.cmdline.script_path:match("^(.*)/") or ".") .. "/?.lua;" .. package.path
local bd = require("bd_common")

bd.init({})

bd.query({
   sql = function(t)
      return string.format("UPDATE sbtest%d SET c = ? WHERE id = ?", t)
   end,
   types = function() return {"char120", "int"} end,
   values = function(buf)
      buf[1] = sysbench.rand.string(bd.C_TEMPLATE)
      buf[2] = bd.rand_id()
      return buf
   end,
})
