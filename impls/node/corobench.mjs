// corobench-node: the corobench workloads on async/await and async generators, driven by the
// external runtime protocol (docs/external.md): one JSON request as the argument (or on stdin),
// one JSON reply on stdout. Run as `node --expose-gc
// --unhandled-rejections=throw corobench.mjs`. Repetitions are timed with
// process.hrtime.bigint() (monotonic); setup and finish of every instance stay outside.
import { readFileSync, writeSync } from 'node:fs';
import { rt } from './rt.mjs';
import { hex } from './u64.mjs';
import * as pingpong from './pingpong.mjs';
import * as recursive from './recursive.mjs';
import * as spawn from './spawn.mjs';
import * as io from './io.mjs';
import * as await_ from './await.mjs';
import * as fault from './fault.mjs';

const PROTOCOL = 'corobench-external/1';
const workloads = { pingpong, recursive, spawn, io, await: await_, fault };

function answer(reply) {
    const out = { protocol: PROTOCOL, runtime: `node ${process.version}`, error: null, ...reply,
                  peak_rss_bytes: process.resourceUsage().maxRSS * 1024 };
    writeSync(1, JSON.stringify(out) + '\n');
    process.exit(0);
}

function fail(message, unsupported = false) {
    answer({ error: message, unsupported, suspensions: 0, coroutine_bytes: null });
}

const gc = globalThis.gc ?? (() => {});

// The process's anonymous resident memory in bytes (RssAnon in /proc/self/status, statm's
// resident - shared: the C cells' definition), or null if unreadable.
function rssAnon() {
    try {
        const m = /^RssAnon:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
        return m ? Number(m[1]) * 1024 : null;
    } catch (e) {
        return null;
    }
}

// One instance run before the timed repetitions: at the workload's rest point, the V8 heap
// grown since the start (after a full collection), per coroutine alive; and the process's
// anonymous resident memory grown with the coroutines alive, for the harness to divide.
async function memoryPass(wl, params) {
    const inst = await wl.setup(params);
    gc();
    const base = process.memoryUsage().heapUsed, rss0 = rssAnon();
    const out = { per: null, alive: null, rss: null };
    rt.restHook = alive => {
        gc();
        const rss1 = rssAnon();
        out.per = (process.memoryUsage().heapUsed - base) / alive;
        out.alive = alive;
        if (rss0 !== null && rss1 !== null) out.rss = rss1 - rss0;
    };
    await inst.run();
    rt.restHook = null;
    await inst.finish();
    return out;
}

async function main() {
    let req; // the first argument (as the harness passes it), else stdin
    try {
        req = JSON.parse(process.argv.length > 2 ? process.argv[2] : readFileSync(0, 'utf8'));
    } catch (e) {
        fail(`node: bad request: ${e.message}`);
    }
    if (req.protocol !== PROTOCOL) fail(`node: protocol '${req.protocol}' (valid: ${PROTOCOL})`);
    const wl = workloads[req.workload];
    if (!wl) fail(`node: no body for workload '${req.workload}'`, true);
    if (wl.unsupported) {
        const why = wl.unsupported(req.params);
        if (why) fail(why, true);
    }
    const auto = req.batch === undefined || req.batch === 'auto';
    let batch = auto ? 1 : req.batch;
    if (!Number.isSafeInteger(batch) || batch < 1)
        fail(`node: batch ${JSON.stringify(req.batch)} (valid: "auto" or an integer >= 1)`);
    const maxBatch = Math.max(1, req.max_batch ?? 1);
    const reps = req.reps, warmup = req.warmup ?? 0;
    if (!Number.isSafeInteger(reps) || reps < 1) fail(`node: reps ${reps} (valid: 1 or more)`);
    const reply = { coroutine_bytes: null };
    try {
        if (req.memory) {
            const m = await memoryPass(wl, req.params);
            reply.coroutine_bytes = m.per;
            if (m.alive !== null) reply.rest_coroutines = m.alive;
            if (m.rss !== null) reply.rest_rss_bytes = m.rss;
            reply.coroutine_bytes_source = 'process.memoryUsage().heapUsed grown by the rest point, per coroutine';
        }
        let first = null;
        const samples = [];
        // Warm-up repetitions go on until `warmup` of them are done and warmup_ms has passed (a
        // JIT needs time to compile the hot paths); each one re-chooses the batch.
        const warmupEnd = process.hrtime.bigint() + BigInt(Math.round((req.warmup_ms ?? 0) * 1e6));
        let warmed = 0;
        for (let rep = 0; rep < warmed + reps; rep++) {
            const warming = rep === warmed && (warmed < warmup || process.hrtime.bigint() < warmupEnd);
            if (warming) warmed++;
            const insts = [];
            for (let i = 0; i < batch; i++) insts.push(await wl.setup(req.params));
            gc(); // the previous repetition's garbage is not this one's cost
            const s0 = rt.suspensions;
            const t0 = process.hrtime.bigint();
            for (const inst of insts) await inst.run();
            const ns = Number(process.hrtime.bigint() - t0);
            const susp = rt.suspensions - s0;
            for (const inst of insts) {
                const res = await inst.finish();
                if (!first) {
                    first = { ops: res.ops, sum: hex(res.h, res.l), susp: 0 };
                } else if (res.ops !== first.ops || hex(res.h, res.l) !== first.sum) {
                    fail(`nondeterministic result: checksum ${first.sum} then ${hex(res.h, res.l)}`);
                }
            }
            if (rep === 0) first.susp = Math.floor(susp / batch);
            if (susp !== first.susp * batch)
                fail(`nondeterministic suspensions: ${first.susp} per run, then ${susp} over ${batch} runs`);
            if (warming) {
                if (auto) { // as the C cells: one repetition lasts at least min_rep_ms
                    const perRun = Math.max(1, ns / batch);
                    const want = (req.min_rep_ms ?? 10) * 1e6 / perRun;
                    batch = want < 1 ? 1 : Math.min(maxBatch, Math.ceil(want));
                }
                continue;
            }
            samples.push(ns / (first.ops * batch));
        }
        answer({ ...reply, ops: first.ops, checksum: first.sum, suspensions: first.susp, batch,
                 samples_ns_per_op: samples });
    } catch (e) {
        fail(e.message);
    }
}

main();
