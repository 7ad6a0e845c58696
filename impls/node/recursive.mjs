// recursive (workloads/recursive.c): a recursive async generator walks a complete binary tree
// of `height` levels in order, delegating to its subtrees with yield*; the consumer folds what
// it receives with for await. One op = one node (one suspension, at its yield). A request for
// the next node travels down the chain of delegating generators, as resuming a closure task
// re-enters through its frames. The node's high half travels beside the yielded low half.
import { r, mix, mul, shr, fromNumber } from './u64.mjs';
import { rt, int, atRest } from './rt.mjs';

// id * 0x9e3779b97f4a7c15 ^ (id >> 3)
function value(sh, id) {
    const il = fromNumber(id), ih = r.h;
    const ml = mul(ih, il, 0x9e3779b9 | 0, 0x7f4a7c15), mh = r.h;
    const sl = shr(ih, il, 3);
    r.h = mh ^ r.h;
    return ml ^ sl;
}

async function* walk(sh, id, level) {
    if (level + 1 < sh.height)
        yield* walk(sh, 2 * id, level + 1);
    rt.suspensions++;
    const l = value(sh, id);
    sh.outH = r.h;
    yield l;
    if (level + 1 < sh.height)
        yield* walk(sh, 2 * id + 1, level + 1);
}

export function setup(params) {
    const sh = { height: int(params, 'height'), outH: 0, sumH: 0, sumL: 0 };
    return {
        async run() {
            let first = true;
            for await (const l of walk(sh, 1, 0)) {
                if (first) {
                    atRest(1); // the generator chain is at its deepest: the leftmost leaf
                    first = false;
                }
                sh.sumL = mix(sh.sumH, sh.sumL, sh.outH, l);
                sh.sumH = r.h;
            }
        },
        finish() {
            return { ops: 2 ** sh.height - 1, h: sh.sumH, l: sh.sumL };
        },
    };
}
