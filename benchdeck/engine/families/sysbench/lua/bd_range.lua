#!/usr/bin/env sysbench
-- range-covered-pk|si, range-notcovered-pk|si: one range of --range-size keys on the
-- primary key (--index=pk: id) or on the secondary index (--index=si: k).
-- Covered selects only the key column (index-only); not covered also selects c.

-- Find bd_common.lua next to this script, whatever the working directory.
package.path = (sysbench.cmdline.script_path:match("^(.*)/") or ".") .. "/?.lua;" .. package.path
local bd = require("bd_common")

bd.init({
   index = {"Which index the range uses: pk (id) or si (k)", "pk"},
   covered = {"Select only the key column (index-only)", true},
})

bd.query({
   sql = function(t)
      local key = ({pk = "id", si = "k"})[sysbench.opt.index]
      assert(key, "--index must be pk or si")
      local columns = sysbench.opt.covered and key or (key .. ", c")
      return string.format("SELECT %s FROM sbtest%d WHERE %s BETWEEN ? AND ?", columns, t, key)
   end,
   types = function() return bd.ints(2) end,
   values = function(buf)
      -- k is uniform over 1..table_size like id, so the same bounds suit both indexes.
      buf[1] = bd.rand_range_start()
      buf[2] = buf[1] + sysbench.opt.range_size - 1
      return buf
   end,
})
