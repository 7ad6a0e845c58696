// forkjoin and yieldstorm on Boost.Fiber (docs/sched.md, "Peers": fiber), following the
// workloads' definition (docs/sched.md, "Workloads"). `workers` W threads run
// boost::fibers::algo::work_stealing: each has a ready queue of its own, and an idle one steals
// from a random other's. The W threads are the cell's thread and W - 1 made at the first setup
// (untimed) and kept for the process: work_stealing's threads meet at a barrier once, so a
// process runs one W. The cell's thread starts the run's fibers and joins them; the others run
// what they steal, polling when there is nothing (suspend=false, below).
// forkjoin: every node a fiber that starts a fiber per child and joins them (a suspension per
// inner node, counted by the definition as go's); yieldstorm: `coros` fibers that each call
// boost::this_fiber::yield() `yields` times (yield puts the fiber back on its thread's ready
// queue, where idle threads steal it).
#include <boost/fiber/all.hpp>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

extern "C" {
#include "impls/runtime.h"
#include "params/params.h"
#include "workloads/sched_fiber.h"
#include "workloads/workload.h"
}

namespace {

using algo = boost::fibers::algo::work_stealing;

// splitmix64's finaliser on x plus the golden gamma: the definition's mix (cb_swl_mix).
inline uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ x >> 30) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ x >> 27) * 0x94d049bb133111ebULL;
    return x ^ x >> 31;
}

// The process's W - 1 helper threads. They stay in the fiber scheduler until the process ends,
// polling for fibers to steal when they have none (work_stealing's suspend=false: with
// suspend=true an idle thread sleeps until a fiber becomes ready on its own queue, so it never
// steals, and workers=2 ran no faster than 1).
struct pool {
    unsigned workers = 0;
    std::vector<std::thread> threads;
    std::atomic<bool> stop{false};
};
pool *the_pool;

// At exit: the helpers leave the scheduler and end before the statics they share
// (work_stealing's list of schedulers) are destroyed; a helper still polling then crashed the
// process (a forkjoin cell at workers=2, signal 11 at exit). Plain atomics and joins only: the
// cell thread's fiber scheduler is gone by then (a fiber mutex threw "deadlock" here).
void pool_stop()
{
    the_pool->stop = true;
    for (std::thread &t : the_pool->threads)
        t.join();
}

// The scheduler of p's W, made at the first setup; 0, or -1 with a reason.
int pool_for(const cb_params *p, char *err, size_t errlen)
{
    long long w = cb_params_int(p, "workers");
    // a queue other than steal is unsupported before setup (cb_swl_unavailable)
    if (the_pool) {
        if (the_pool->workers == (unsigned)w)
            return 0;
        snprintf(err, errlen,
                 "fiber: workers=%lld after workers=%u in one process (work_stealing's threads "
                 "meet once; each cell is a process of its own)",
                 w, the_pool->workers);
        return -1;
    }
    the_pool = new pool;
    the_pool->workers = (unsigned)w;
    for (unsigned i = 1; i < (unsigned)w; i++)
        the_pool->threads.emplace_back([w] {
            boost::fibers::use_scheduling_algorithm<algo>((uint32_t)w, false);
            // the thread's main fiber sleeps (a fiber primitive would not survive the exit's
            // destruction of the cell thread's scheduler): the scheduler runs stolen fibers
            while (!the_pool->stop)
                boost::this_fiber::sleep_for(std::chrono::milliseconds(1));
        });
    boost::fibers::use_scheduling_algorithm<algo>((uint32_t)w, false);
    std::atexit(pool_stop);
    return 0;
}

// ---- forkjoin ----------------------------------------------------------------------------

struct fj_result {
    uint64_t sum, tasks, inner;
};

struct fj {
    uint64_t fanout, leaf_work, q;
    int64_t depth;
    bool unbalanced;
    fj_result r;

    uint64_t children(uint64_t id, int64_t level) const
    {
        if (level >= depth)
            return 0;
        return !unbalanced || level == 0 || mix(id) % 1000 < q ? fanout : 0;
    }

    fj_result node(uint64_t id, int64_t level) const
    {
        uint64_t n = children(id, level), v = mix(id);
        if (n == 0) {
            for (uint64_t k = 0; k < leaf_work; k++)
                v = mix(v);
            return {v, 1, 0};
        }
        std::vector<fj_result> kids(n);
        std::vector<boost::fibers::fiber> fs;
        fs.reserve(n);
        for (uint64_t i = 0; i < n; i++)
            fs.emplace_back(boost::fibers::launch::post,
                            [this, &kids, id, i, level] {
                                kids[i] = node(id * fanout + i + 1, level + 1);
                            });
        for (boost::fibers::fiber &f : fs)
            f.join();
        fj_result r{v, 1, 1};
        for (const fj_result &k : kids) {
            r.sum += k.sum;
            r.tasks += k.tasks;
            r.inner += k.inner;
        }
        return r;
    }
};

// ---- yieldstorm --------------------------------------------------------------------------

struct ys {
    uint64_t coros, yields;
    std::vector<uint64_t> states;
};

} // namespace

extern "C" {

void *cb_fiber_forkjoin_setup(const cb_impl *, const cb_params *p, char *err, size_t errlen)
{
    if (pool_for(p, err, errlen))
        return nullptr;
    fj *w = new fj;
    w->fanout = (uint64_t)cb_params_int(p, "fanout");
    w->depth = cb_params_int(p, "depth");
    w->leaf_work = (uint64_t)cb_params_int(p, "leaf_work");
    w->q = (uint64_t)cb_params_int(p, "q");
    w->unbalanced = strcmp(cb_params_str(p, "shape"), "unbalanced") == 0;
    w->r = {0, 0, 0};
    return w;
}

int cb_fiber_forkjoin_run(void *inst, char *, size_t)
{
    fj *w = static_cast<fj *>(inst);
    boost::fibers::fiber root(boost::fibers::launch::post, [w] { w->r = w->node(0, 0); });
    root.join();
    cb_rt.suspensions += w->r.inner; // on the cell's thread, after the join
    return 0;
}

int cb_fiber_forkjoin_finish(void *inst, cb_wl_result *out, char *, size_t)
{
    fj *w = static_cast<fj *>(inst);
    out->ops = w->r.tasks;
    out->checksum = w->r.sum;
    delete w;
    return 0;
}

void *cb_fiber_yieldstorm_setup(const cb_impl *, const cb_params *p, char *err, size_t errlen)
{
    if (pool_for(p, err, errlen))
        return nullptr;
    ys *w = new ys;
    w->coros = (uint64_t)cb_params_int(p, "coros");
    w->yields = (uint64_t)cb_params_int(p, "yields");
    w->states.assign(w->coros, 0);
    return w;
}

int cb_fiber_yieldstorm_run(void *inst, char *, size_t)
{
    ys *w = static_cast<ys *>(inst);
    std::vector<boost::fibers::fiber> fs;
    fs.reserve(w->coros);
    for (uint64_t id = 0; id < w->coros; id++)
        fs.emplace_back(boost::fibers::launch::post, [w, id] {
            uint64_t s = mix(id);
            for (uint64_t k = 0; k < w->yields; k++) {
                boost::this_fiber::yield();
                s = mix(s ^ k);
            }
            w->states[id] = s;
        });
    for (boost::fibers::fiber &f : fs)
        f.join();
    cb_rt.suspensions += w->coros * w->yields;
    return 0;
}

int cb_fiber_yieldstorm_finish(void *inst, cb_wl_result *out, char *, size_t)
{
    ys *w = static_cast<ys *>(inst);
    uint64_t sum = 0;
    for (uint64_t s : w->states)
        sum += s;
    out->ops = w->coros * w->yields;
    out->checksum = sum;
    delete w;
    return 0;
}

} // extern "C"
