// fault (workloads/fault.c, docs/fault.md): the harness's self-test, not a benchmark. An async
// function awaits once (the suspension) and, resumed, commits the fault `kind` names inside
// itself, in JavaScript's terms. Nobody awaits that coroutine (as nobody recovers a goroutine's
// panic), so a throw is an unhandled rejection, which Node (--unhandled-rejections=throw, its
// default) prints and ends with exit status 1; the program never replies and the harness must
// record the cell with the reason:
//   segv      a store through null: JavaScript has no wild store, V8 checks and throws
//             "TypeError: Cannot set properties of null"
//   overflow  an endless chain of async calls, each started synchronously inside its caller as
//             the closure family's awaits are, on the thread's stack: "RangeError: Maximum call
//             stack size exceeded"
//   hang      spins forever (the harness's timeout must end it)
//   abort     process.abort(): C's abort(), SIGABRT
//   exit      process.exit(0): the program ends "successfully" without a reply
import { rt, str } from './rt.mjs';
import { r, mix } from './u64.mjs';

const KINDS = ['segv', 'overflow', 'hang', 'abort', 'exit'];

const hole = { target: null }; // hole.target stays null: the store below is through null

async function nest(n) {
    return 1 + await nest(n + 1);
}

// Never returns normally.
async function commit(kind) {
    switch (kind) {
    case 'segv': hole.target.value = 1; break;
    case 'overflow': await nest(0); break;
    case 'hang': for (;;);
    case 'abort': process.abort(); break;
    case 'exit': process.exit(0); break;
    }
    throw new Error(`fault: kind ${kind} did not fault`); // a bug of this file
}

export function setup(params) {
    const kind = str(params, 'kind', KINDS);
    let resume = null;
    async function coroutine() {
        rt.suspensions++;
        await new Promise(res => { resume = res; }); // the one real suspension
        await commit(kind);
    }
    return {
        run() {
            coroutine(); // runs to its await; its rejection is nobody's to handle
            resume(); // the second resume: the coroutine faults in the next microtask
            return new Promise(() => {}); // never settles: the fault ends the program
        },
        finish() { // never reached: run's fault ends the program
            const l = mix(0, 0, 0, 1);
            return { ops: 1, h: r.h, l };
        },
    };
}
