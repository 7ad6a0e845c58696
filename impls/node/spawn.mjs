// spawn (workloads/spawn.c): n async functions are called; each awaits `depth` nested async
// calls, every level holding frame bytes of live locals (a typed array of frame/4 32-bit
// halves), and the innermost awaits a promise that its handle resolves. With all n pending the
// driver is at the rest point; then it resolves each handle and awaits the function's result.
// One op = one async function's whole life.
import { r, mix, mul, add, shr } from './u64.mjs';
import { rt, int, atRest } from './rt.mjs';

const K_H = 0x9e3779b9 | 0, K_L = 0x7f4a7c15;

// (id << 24 ^ level << 12 ^ k) * 0x9e3779b97f4a7c15, for id < 2^32, level < 2^20, k < 2^12
function word(id, level, k) {
    return mul(id >>> 8, (id << 24) ^ (level << 12) ^ k, K_H, K_L);
}

// splitmix64's finaliser on (h, l), as spawn.c's sp_hash.
function hash(h, l) {
    l = add(h, l, 0x9e3779b9 | 0, 0x7f4a7c15);
    h = r.h;
    let sl = shr(h, l, 30);
    l = mul(h ^ r.h, l ^ sl, 0xbf58476d | 0, 0x1ce4e5b9);
    h = r.h;
    sl = shr(h, l, 27);
    l = mul(h ^ r.h, l ^ sl, 0x94d049bb | 0, 0x133111eb);
    h = r.h;
    sl = shr(h, l, 31);
    r.h = h ^ r.h;
    return l ^ sl;
}

// spawn.c's order=random: a Fisher-Yates shuffle of 0..n-1 driven by hash; null for fifo.
function shuffle(n, seed) {
    const order = new Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    let l = seed >>> 0 | 0, h = Math.floor(seed / 4294967296) | 0;
    for (let i = n - 1; i >= 1; i--) {
        l = hash(h, l);
        h = r.h;
        const d = i + 1; // (h * 2^32 + l) mod d, unsigned, exact in doubles for d < 2^21
        const j = (((h >>> 0) % d) * (4294967296 % d) + ((l >>> 0) % d)) % d;
        const t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    return order;
}

async function level(w, id, lvl, hd) {
    const loc = new Int32Array(2 * w.words);
    for (let k = 0; k < w.words; k++) {
        loc[2 * k] = word(id, lvl, k);
        loc[2 * k + 1] = r.h;
    }
    let vh, vl;
    if (lvl === w.depth) {
        rt.suspensions++;
        // id * 0xd6e8feb86659fd93 + 1
        const bl = mul(0, id, 0xd6e8feb8 | 0, 0x6659fd93);
        w.outL = add(r.h, bl, 0, 1);
        w.outH = r.h;
        vl = await new Promise(res => { hd.resolve = res; });
        vh = hd.inH;
    } else {
        vl = await level(w, id, lvl + 1, hd);
        vh = hd.h;
    }
    let al = add(vh, vl, 0, lvl), ah = r.h;
    for (let k = 0; k < w.words; k++) {
        al = mul(ah ^ loc[2 * k + 1], al ^ loc[2 * k], 0x100, 0x1b3);
        ah = r.h;
    }
    hd.h = ah;
    return al;
}

export function setup(params) {
    const n = int(params, 'n'), frame = int(params, 'frame');
    if (frame % 8 !== 0) throw new Error(`spawn: frame=${frame} is not a multiple of 8 (valid: 8, 16, ..., 65536)`);
    const w = { depth: int(params, 'depth'), words: frame / 8, outH: 0, outL: 0 };
    const handle = new Array(n).fill(null); // one per coroutine, as a run queue holds
    const order = params.order === 'random' ? shuffle(n, int(params, 'seed')) : null;
    let sumH = 0, sumL = 0;
    return {
        async run() {
            for (let i = 0; i < n; i++) {
                const hd = { resolve: null, inH: 0, h: 0, done: null };
                handle[i] = hd;
                hd.done = level(w, i, 0, hd); // runs to its innermost await
                sumL = mix(sumH, sumL, w.outH, w.outL);
                sumH = r.h;
            }
            atRest(n);
            for (let j = 0; j < n; j++) {
                const i = order ? order[j] : j;
                const hd = handle[i];
                hd.inH = 0x5bd1e995 | 0; // i ^ 0x5bd1e9955bd1e995, for i < 2^32
                hd.resolve(i ^ 0x5bd1e995);
                const l = await hd.done;
                sumL = mix(sumH, sumL, hd.h, l);
                sumH = r.h;
                handle[i] = null;
            }
        },
        finish() {
            return { ops: n, h: sumH, l: sumL };
        },
    };
}

// Why this point cannot run here, or null: layout=offset, or a seed above 2^53 (it does not
// survive a JavaScript number).
export function unsupported(params) {
    if (params.layout !== 'aligned') // refused, as docs/memory.md asks of what cannot honour it
        return 'spawn: layout=offset moves C stacks and frames; V8 places its objects itself ' +
               '(valid here: layout=aligned)';
    return params.order !== 'random' || Number.isSafeInteger(params.seed) ? null
        : `spawn: seed=${params.seed} is above 2^53, which a JavaScript number cannot hold exactly`;
}
