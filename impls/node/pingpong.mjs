// pingpong (workloads/pingpong.c): async functions A and B hand a value back and forth
// `switches` times. Each calls down an async chain of `depth` levels and, at the bottom, hands
// its value to the other side by resolving the promise the other awaits, then awaits its own.
// One op = one hand-off (one suspension). Every level's return resolves its caller's await, so
// one op also costs the promise jobs of `depth` async returns, as JavaScript runs them.
// `sites` only picks the salt (B uses A's with sites=same): code copies are V8's business.
import { r, mix, mul, rotl, add } from './u64.mjs';
import { rt, int, str } from './rt.mjs';

const FNV_H = 0x100, FNV_L = 0x1b3;

// (v ^ level) * 0x100000001b3 + salt
function down(vh, vl, level, salt) {
    const l = mul(vh, vl ^ level, FNV_H, FNV_L);
    return add(r.h, l, 0, salt);
}
// (v rotl 7) + level
function up(vh, vl, level) {
    const l = rotl(vh, vl, 7);
    return add(r.h, l, 0, level);
}

function handoff(me, vh, vl) {
    rt.suspensions++;
    const p = new Promise(res => { me.resolve = res; });
    const o = me.other;
    o.inH = vh;
    o.resolve(vl);
    return p;
}

function receive(me, gl) {
    const sh = me.sh, gh = me.inH;
    sh.sumL = mix(sh.sumH, sh.sumL, gh, gl);
    sh.sumH = r.h;
    me.h = gh;
    return gl;
}

// Chain level `level` (1..depth); its result's high half in me.h.
async function chain(me, level, vh, vl) {
    if (level === me.sh.depth)
        return receive(me, await handoff(me, vh, vl));
    const dl = down(vh, vl, level, me.salt);
    const rl = await chain(me, level + 1, r.h, dl);
    const ul = up(me.h, rl, level);
    me.h = r.h;
    return ul;
}

async function loop(me) {
    const sh = me.sh;
    let vl = await new Promise(res => { me.resolve = res; }); // A: from run; B: A's first hand-off
    let vh = me.inH;
    while (sh.remaining > 0) {
        sh.remaining--;
        if (sh.depth === 0) { // level 0 is the loop itself
            vl = receive(me, await handoff(me, vh, vl));
            vh = me.h;
        } else {
            const dl = down(vh, vl, 0, me.salt);
            const rl = await chain(me, 1, r.h, dl);
            vl = up(me.h, rl, 0);
            vh = r.h;
        }
    }
    sh.finalH = vh;
    sh.finalL = vl;
    sh.done();
}

export function setup(params) {
    const switches = int(params, 'switches');
    const sites = str(params, 'sites', ['distinct', 'same']);
    const sh = { remaining: switches, depth: int(params, 'depth'), sumH: 0, sumL: 0,
                 finalH: 0, finalL: 0, done: null };
    const salts = [0x0a, sites === 'same' ? 0x0a : 0x0b];
    const side = salts.map(salt => ({ sh, salt, resolve: null, inH: 0, h: 0, other: null }));
    side[0].other = side[1];
    side[1].other = side[0];
    const finished = new Promise(res => { sh.done = res; });
    side.forEach(loop); // both exist before the clock starts, as C's coroutines
    return {
        async run() {
            side[0].inH = 0x12345678;
            side[0].resolve(0x90abcdef | 0);
            await finished;
        },
        finish() {
            const l = mix(sh.sumH, sh.sumL, sh.finalH, sh.finalL);
            return { ops: switches, h: r.h, l };
        },
    };
}
