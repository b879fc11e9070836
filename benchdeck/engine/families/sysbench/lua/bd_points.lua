#!/usr/bin/env sysbench
-- points-covered-pk|si, points-notcovered-pk|si: an IN-list of --points keys on the
-- primary key (--index=pk: id) or on the secondary index (--index=si: k, index k_N).
-- Covered selects only the key column, so the index alone answers (index-only);
-- not covered also selects c, so each match is looked up in the row.

-- Find bd_common.lua next to this script, whatever the working directory.
package.path = (sysbench.cmdline.script_path:match("^(.*)/") or ".") .. "/?.lua;" .. package.path
local bd = require("bd_common")

bd.init({
   points = {"Number of keys in the IN-list", 10},
   index = {"Which index the IN-list uses: pk (id) or si (k)", "pk"},
   covered = {"Select only the key column (index-only)", true},
})

bd.query({
   sql = function(t)
      local key = ({pk = "id", si = "k"})[sysbench.opt.index]
      assert(key, "--index must be pk or si")
      local columns = sysbench.opt.covered and key or (key .. ", c")
      return string.format("SELECT %s FROM sbtest%d WHERE %s IN (%s)",
         columns, t, key, bd.marks(sysbench.opt.points))
   end,
   types = function() return bd.ints(sysbench.opt.points) end,
   values = function(buf)
      for i = 1, sysbench.opt.points do buf[i] = bd.rand_id() end
      return buf
   end,
})
