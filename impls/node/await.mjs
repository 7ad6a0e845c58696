// await (workloads/await.c): an async task makes `calls` top-level async calls in sequence, each
// a chain of `depth` nested async function calls whose innermost awaits a value. One call in
// `suspend_every` finds it missing: it awaits a promise that the driver settles (one suspension);
// the others await the value itself. JavaScript has no fast path for an await: awaiting a value,
// or an async function that has already returned, still takes a turn of the microtask queue, as
// the language defines it; that is what these cells measure. One op = one top-level call.
import { r, mix, mul, rotl, add, fromNumber } from './u64.mjs';
import { rt, int, str } from './rt.mjs';

// i * 0x2545f4914f6cdd1d + 0x1234567
function arg(i) {
    const il = fromNumber(i);
    const l = mul(r.h, il, 0x2545f491, 0x4f6cdd1d);
    return add(r.h, l, 0, 0x1234567);
}
// (i ^ 0x5bd1e995) * 0x9e3779b97f4a7c15
function value(i) {
    const il = fromNumber(i);
    return mul(r.h, il ^ 0x5bd1e995, 0x9e3779b9 | 0, 0x7f4a7c15);
}
// (v ^ level) * 0x100000001b3 + 0x0c
function down(vh, vl, level) {
    const l = mul(vh, vl ^ level, 0x100, 0x1b3);
    return add(r.h, l, 0, 0x0c);
}
// (v rotl 7) + level
function up(vh, vl, level) {
    const l = rotl(vh, vl, 7);
    return add(r.h, l, 0, level);
}

function suspends(sh, i) {
    return sh.every !== 0 && i % sh.every === sh.every - 1;
}

// Level `level` (0..depth); its result's high half in sh.h.
async function chain(sh, level, vh, vl) {
    if (level < sh.depth) {
        const dl = down(vh, vl, level);
        const rl = await chain(sh, level + 1, r.h, dl);
        const ul = up(sh.h, rl, level);
        sh.h = r.h;
        return ul;
    }
    let gh, gl;
    if (suspends(sh, sh.i)) {
        rt.suspensions++;
        sh.wake(); // the driver delivers the value and settles the promise
        gl = await new Promise(res => { sh.resolve = res; });
        gh = sh.inH;
    } else {
        const l = value(sh.i);
        gh = r.h;
        gl = await l;
    }
    const sl = add(vh, vl, gh, gl);
    const ul = up(r.h, sl, level);
    sh.h = r.h;
    return ul;
}

async function task(sh, started) {
    await started;
    for (sh.i = 0; sh.i < sh.calls; sh.i++) {
        const al = arg(sh.i);
        const rl = await chain(sh, 0, r.h, al);
        sh.sumL = mix(sh.sumH, sh.sumL, sh.h, rl);
        sh.sumH = r.h;
    }
}

export function setup(params) {
    const k = str(params, 'suspend_every', ['1', '10', '100', 'never']);
    const sh = { calls: int(params, 'calls'), depth: int(params, 'depth'),
                 every: k === 'never' ? 0 : Number(k), i: 0, h: 0, inH: 0, sumH: 0, sumL: 0,
                 wake: null, resolve: null };
    let go;
    const started = new Promise(res => { go = res; });
    let finished = false;
    let wait = new Promise(res => { sh.wake = res; });
    // created before the clock starts, as C's task coroutine
    task(sh, started).then(() => { finished = true; sh.wake(); });
    return {
        async run() {
            go();
            for (;;) {
                await wait;
                if (finished) return;
                wait = new Promise(res => { sh.wake = res; });
                const l = value(sh.i); // the value arrives: the suspended call resumes
                sh.inH = r.h;
                sh.resolve(l);
            }
        },
        finish() {
            return { ops: sh.calls, h: sh.sumH, l: sh.sumL };
        },
    };
}
