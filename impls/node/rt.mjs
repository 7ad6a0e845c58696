// What every workload module shares with the driver (corobench.mjs).
// suspensions counts the points where an async function or generator gives up control by the
// workload's protocol (an await on a promise not yet settled, a yield): one add per suspension,
// as the C runtimes charge it. restHook, when set, is called at a workload's rest point.
export const rt = { suspensions: 0, restHook: null };

export function atRest(alive) {
    if (rt.restHook) rt.restHook(alive);
}

export function int(params, name) {
    const v = params[name];
    if (!Number.isSafeInteger(v)) throw new Error(`parameter ${name} missing or not an integer`);
    return v;
}

export function str(params, name, choices) {
    const v = params[name];
    if (!choices.includes(v))
        throw new Error(`parameter ${name} '${v}' (valid: ${choices.join(', ')})`);
    return v;
}
