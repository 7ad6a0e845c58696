-- A Lua body whose finish raises (tests/test_workloads.c, workload_lua_finish_error_reported):
-- the lua runtime must report the error, not ops 0 and checksum 0.
return {
    setup = function(p)
        local inst = {}
        function inst.run() end
        function inst.finish() error("finish failed on purpose") end
        return inst
    end,
}
