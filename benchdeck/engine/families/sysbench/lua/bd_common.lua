-- bd_common.lua: the shared helper of benchdeck's sysbench scripts (sysbench >= 1.0.20).
--
-- A script registers its options and one statement with bd.init() and bd.query();
-- this helper then provides what sysbench calls:
--   prepare  create sbtest1..N and load them (parallel over --threads, like stock)
--   run      thread_init / event / thread_done: one prepared statement per event
--   cleanup  drop the tables
--   sql      print the statement (template and an instance with literal values)
--            without touching the database, for EXPLAIN by tests and users
-- The schema is the one of stock oltp_common.lua (id primary key, k with index k_N,
-- c CHAR(120), pad CHAR(60)), so tables prepared by either work with both.
-- Statements go through con:prepare(), so --db-ps-mode=disable is honoured by sysbench.

local bd = {}

-- Options every benchdeck script accepts (sysbench spells them --table-size etc.).
local common_options = {
   table_size = {"Number of rows per table", 10000},
   tables = {"Number of tables", 1},
   range_size = {"Rows per range query", 100},
   mysql_storage_engine = {"Storage engine, if MySQL/MariaDB is used", "innodb"},
   create_table_options = {"Extra CREATE TABLE options", ""},
   id_dist = {"Distribution of row ids: default (follows --rand-type) or zipfian", "default"},
   zipf_exp = {"Exponent of the zipfian id distribution", 0.8},
}

-- Register the common options plus the script's own ones.
function bd.init(script_options)
   local all = {}
   for name, spec in pairs(common_options) do all[name] = spec end
   for name, spec in pairs(script_options or {}) do all[name] = spec end
   sysbench.cmdline.options = all
end

-- ---------------------------------------------------------------- random values
-- 11-digit groups joined by '-': 10 groups for c (119 chars), 5 for pad (59 chars).
local function digit_groups(n)
   return string.rep("###########-", n - 1) .. "###########"
end
bd.C_TEMPLATE = digit_groups(10)
bd.PAD_TEMPLATE = digit_groups(5)

-- Zipfian ids by rejection-inversion (Hoermann & Derflinger 1996): O(1) per sample, no
-- precomputed zeta, so any table size works. sysbench 1.0.20 has no --rand-type=zipfian.
local zipf

local function zipf_sampler(n, s)
   -- H is an integral of x^-s, Hinv its inverse; they bound the discrete distribution.
   local H, Hinv
   if math.abs(1 - s) < 1e-9 then
      H, Hinv = math.log, math.exp
   else
      local a = 1 - s
      H = function(x) return (x ^ a - 1) / a end
      Hinv = function(y) return (1 + a * y) ^ (1 / a) end
   end
   local h = function(x) return x ^ -s end
   local top, bottom = H(1.5) - 1, H(n + 0.5)
   local squeeze = 2 - Hinv(H(2.5) - h(2))
   return function()
      while true do
         local u = bottom + sysbench.rand.uniform_double() * (top - bottom)
         local x = Hinv(u)
         local k = math.max(1, math.min(n, math.floor(x + 0.5)))
         if k - x <= squeeze or u >= H(k + 0.5) - h(k) then
            return k
         end
      end
   end
end

-- A row id (or k value: k is uniform over the same 1..table_size) for the next statement.
function bd.rand_id()
   if sysbench.opt.id_dist == "zipfian" then
      zipf = zipf or zipf_sampler(sysbench.opt.table_size, sysbench.opt.zipf_exp)
      return zipf()
   end
   return sysbench.rand.default(1, sysbench.opt.table_size)
end

-- First id of a range of --range-size rows that lies inside the table.
function bd.rand_range_start()
   local last = math.max(1, sysbench.opt.table_size - sysbench.opt.range_size + 1)
   return sysbench.rand.default(1, last)
end

-- "?, ?, ?" with n marks, for IN-lists.
function bd.marks(n)
   return string.rep("?, ", n - 1) .. "?"
end

-- n integer parameters (prefixed by the given types, if any).
function bd.ints(n, prefix)
   local types = {unpack(prefix or {})}
   for _ = 1, n do types[#types + 1] = "int" end
   return types
end

-- ---------------------------------------------------------------- the statement
-- spec = { sql = function(table_num) -> text with ? marks,
--          types = function() -> { "int" | "char120", ... } (one per ?),
--          values = function(buf) -> buf filled with one value per ? }
local spec

function bd.query(s)
   spec = s
end

-- Options are parsed after the script is loaded: check them when a command starts.
local function check_options()
   local dist = sysbench.opt.id_dist
   if dist ~= "default" and dist ~= "zipfian" then
      error("--id-dist must be default or zipfian, not " .. tostring(dist))
   end
end

-- ---------------------------------------------------------------- prepare / cleanup
local function create_table(drv, con, t)
   local n = sysbench.opt.table_size
   local id_def, options = "INTEGER NOT NULL AUTO_INCREMENT", ""
   if drv:name() == "pgsql" then
      id_def = "SERIAL"
   else
      options = "/*! ENGINE = " .. sysbench.opt.mysql_storage_engine .. " */"
   end
   print(string.format("Creating table 'sbtest%d' with %d rows...", t, n))
   con:query(string.format([[
CREATE TABLE sbtest%d(
  id %s,
  k INTEGER DEFAULT '0' NOT NULL,
  c CHAR(120) DEFAULT '' NOT NULL,
  pad CHAR(60) DEFAULT '' NOT NULL,
  PRIMARY KEY (id)
) %s %s]], t, id_def, options, sysbench.opt.create_table_options))

   -- Explicit, dense ids 1..n; k uniform over the same range.
   con:bulk_insert_init(string.format("INSERT INTO sbtest%d (id, k, c, pad) VALUES", t))
   for id = 1, n do
      con:bulk_insert_next(string.format("(%d, %d, '%s', '%s')", id,
         sysbench.rand.uniform(1, n), sysbench.rand.string(bd.C_TEMPLATE),
         sysbench.rand.string(bd.PAD_TEMPLATE)))
   end
   con:bulk_insert_done()
   con:query(string.format("CREATE INDEX k_%d ON sbtest%d(k)", t, t))

   if drv:name() == "pgsql" then
      -- Explicit ids leave the SERIAL sequence behind: move it past them so stock
      -- oltp_insert (which relies on the sequence) works; then stats + visibility map.
      con:query(string.format("SELECT setval(pg_get_serial_sequence('sbtest%d', 'id'), %d)",
         t, math.max(n, 1)))
      con:query(string.format("VACUUM ANALYZE sbtest%d", t))
   else
      con:query(string.format("ANALYZE TABLE sbtest%d", t))
   end
end

local function cmd_prepare()
   local drv = sysbench.sql.driver()
   local con = drv:connect()
   for t = sysbench.tid % sysbench.opt.threads + 1, sysbench.opt.tables, sysbench.opt.threads do
      create_table(drv, con, t)
   end
   con:disconnect()
end

function cleanup()
   local con = sysbench.sql.driver():connect()
   for t = 1, sysbench.opt.tables do
      print(string.format("Dropping table 'sbtest%d'...", t))
      con:query("DROP TABLE IF EXISTS sbtest" .. t)
   end
   con:disconnect()
end

-- ---------------------------------------------------------------- sql command
-- The statement with each ? replaced by a literal (strings quoted; values are digits and '-').
function bd.instance(t)
   local values = spec.values({})
   local i = 0
   return (spec.sql(t):gsub("%?", function()
      i = i + 1
      local v = values[i]
      return type(v) == "string" and ("'" .. v .. "'") or tostring(v)
   end))
end

local function cmd_sql()
   check_options()
   print("BD-SQL-TEMPLATE\t" .. (spec.sql(1):gsub("%s+", " ")))
   print("BD-SQL\t" .. (bd.instance(1):gsub("%s+", " ")))
end

sysbench.cmdline.commands = {
   prepare = {cmd_prepare, sysbench.cmdline.PARALLEL_COMMAND},
   sql = {cmd_sql},
}

-- ---------------------------------------------------------------- run
local con, stmts, buf

local function prepare_statements()
   stmts = {}
   for t = 1, sysbench.opt.tables do
      local stmt = con:prepare(spec.sql(t))
      local params = {}
      for i, ty in ipairs(spec.types()) do
         if ty == "char120" then
            params[i] = stmt:bind_create(sysbench.sql.type.CHAR, 120)
         else
            params[i] = stmt:bind_create(sysbench.sql.type.INT)
         end
      end
      if #params > 0 then stmt:bind_param(unpack(params)) end
      stmts[t] = {stmt = stmt, params = params}
   end
end

local function close_statements()
   for _, s in ipairs(stmts or {}) do s.stmt:close() end
   stmts = nil
end

function thread_init()
   check_options()
   con = sysbench.sql.driver():connect()
   buf = {}
   prepare_statements()
end

function thread_done()
   close_statements()
   con:disconnect()
end

-- One statement per event, on a random table, autocommit.
function event()
   local s = stmts[sysbench.rand.uniform(1, sysbench.opt.tables)]
   local values = spec.values(buf)
   for i = 1, #s.params do s.params[i]:set(values[i]) end
   s.stmt:execute()
end

-- After a reconnect (errors listed in --mysql-ignore-errors) the statements are gone.
function sysbench.hooks.before_restart_event(err)
   local lost = {[2006] = true, [2011] = true, [2013] = true, [2055] = true}
   if lost[err.sql_errno] then
      close_statements()
      prepare_statements()
   end
end

return bd
