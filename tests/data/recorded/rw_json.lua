-- benchdeck fixture wrapper: stock oltp_read_write with the built-in json intermediate report
dofile("/usr/share/sysbench/oltp_read_write.lua")
sysbench.hooks.report_intermediate = sysbench.report_json
