/* One instance, setup to finish (run_once.h). */
#include "run_once.h"
#include "sched_wl.h"

#include <stdio.h>
#include <string.h>

#include "impls/runtime.h"

const cb_family_ops *cb_wl_family(const cb_workload *wl, const cb_impl *impl)
{
    if (impl->backend && impl->backend->at_call_site && !(wl = cb_workload_inline_twin(wl)))
        return NULL;
    const cb_family_ops *f = &wl->family[impl->body];
    return f->setup && f->run && f->finish ? f : NULL;
}

/* The need of wl that impl lacks for value `value` of param, or NULL. */
static const cb_wl_need *lacked(const cb_workload *wl, const cb_impl *impl, const char *param,
                                const char *value)
{
    for (const cb_wl_need *n = wl->needs; n && n->param; n++)
        if (impl->lacks[n->cap] && !strcmp(n->param, param) && n->value &&
            !strcmp(n->value, value))
            return n;
    return NULL;
}

/* The need of wl that impl lacks for an integer param away from its default (a need without a
 * value), or NULL. */
static const cb_wl_need *lacked_int(const cb_workload *wl, const cb_impl *impl,
                                    const cb_param_val *v)
{
    char def[32];
    snprintf(def, sizeof def, "%lld", (long long)v->i);
    for (const cb_wl_need *n = wl->needs; n && n->param; n++)
        if (impl->lacks[n->cap] && !n->value && !strcmp(n->param, v->def->name) &&
            strcmp(def, v->def->defval))
            return n;
    return NULL;
}

const char *cb_wl_unsupported(const cb_workload *wl, const cb_impl *impl, const cb_params *p,
                              char *buf, size_t len)
{
    const char *why = cb_impl_unavailable(impl);
    if (why)
        return why;
    for (size_t i = 0; i < p->n; i++) {
        const cb_param_val *v = &p->v[i];
        const cb_wl_need *ni = v->def->kind == CB_PARAM_INT ? lacked_int(wl, impl, v) : NULL;
        if (ni) {
            snprintf(buf, len, "%s %s=%lld needs %s; %s: %s (valid here: %s=%s)", wl->name,
                     ni->param, (long long)v->i, cb_cap_name(ni->cap), impl->name,
                     impl->lacks[ni->cap], ni->param, v->def->defval);
            return buf;
        }
        const cb_wl_need *n = v->def->kind == CB_PARAM_ENUM
                                  ? lacked(wl, impl, v->def->name, v->s)
                                  : NULL;
        if (!n)
            continue;
        int k = snprintf(buf, len, "%s %s=%s needs %s; %s: %s (valid here:", wl->name, n->param,
                         n->value, cb_cap_name(n->cap), impl->name, impl->lacks[n->cap]);
        const char *sep = " ";
        for (const char *const *c = v->def->choices; *c && k >= 0 && (size_t)k < len; c++)
            if (!lacked(wl, impl, n->param, *c)) {
                k += snprintf(buf + k, len - (size_t)k, "%s%s=%s", sep, n->param, *c);
                sep = ", ";
            }
        if (k >= 0 && (size_t)k < len)
            snprintf(buf + k, len - (size_t)k, ")");
        return buf;
    }
    cb_impl_point pt = {wl->name, wl->alive(p)};
    if (impl->check && impl->check(&pt, p, buf, len))
        return buf;
    /* a body of the scheduler's workloads (forkjoin and yieldstorm) needs its queue: built, or
     * the only one its runtime has (fiber, omp); a stackful one a backend whose coroutines can
     * move between workers, a closure one malloc's frames */
    if (cb_wl_family(wl, impl))
        return cb_swl_unavailable(impl, p, buf, len);
    return NULL;
}

void cb_wl_no_body(const cb_workload *wl, const cb_impl *impl, char *buf, size_t len)
{
    const char *why = wl->family[impl->body].unsupported;
    snprintf(buf, len, "%s has no %s body%s%s", wl->name, cb_impl_body_name(impl),
             why ? ": " : "", why ? why : "");
}

int cb_wl_run_once(const cb_workload *wl, const cb_impl *impl, const cb_params *p,
                   const cb_wl_around *around, cb_wl_once *out, char *err, size_t errlen)
{
    const cb_family_ops *f = cb_wl_family(wl, impl);
    out->res = (cb_wl_result){0, 0};
    out->suspensions = 0;
    if (!f) {
        cb_wl_no_body(wl, impl, err, errlen);
        return -1;
    }
    cb_co_install_fault_reporter(); /* stack overflows named, in every family */
    void *inst = f->setup(impl, p, err, errlen);
    if (!inst)
        return -1;
    uint64_t s0 = cb_rt.suspensions;
    if (around && around->before)
        around->before(around->ctx);
    int rc = f->run(inst, err, errlen);
    if (around && around->after)
        around->after(around->ctx);
    out->suspensions = cb_rt.suspensions - s0;
    /* run's error first: finish's would follow from it */
    if (f->finish(inst, &out->res, rc ? NULL : err, rc ? 0 : errlen) != 0)
        rc = -1;
    return rc ? -1 : 0;
}
