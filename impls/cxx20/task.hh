// The cxx20 runtime: C++20 stackless coroutines as the language lowers them (g++ -std=c++20).
// task<T> is an awaitable coroutine whose co_await of a child task transfers to the child
// symmetrically (await_suspend returns its handle) and whose completion transfers straight back
// to the awaiting parent (final_suspend returns the parent's handle): nested awaits neither grow
// the C stack nor bounce through a scheduler. The frame of every coroutine comes from
// cb_rt_alloc, so it is the runtime heap the harness reports. A suspension point (suspend_to)
// records the innermost suspended handle in the top-level coroutine's slot, counts the suspension
// and returns to whoever resumed the chain: the driver resumes that innermost handle next, as a
// scheduler resumes an awaiting task. generator<T> is a recursive generator built on them.
// The workloads' C++20 bodies (workloads/<workload>_cxx20.cc, the only C++ translation units) are
// written on these types and export C entry points (workloads/cxx20.h).
#ifndef CB_CXX20_TASK_HH
#define CB_CXX20_TASK_HH

#include <coroutine>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <utility>

extern "C" {
#include "impls/runtime.h"
}

namespace cbx {

// Coroutine frames are runtime heap (the size comes back with the delete).
struct frame_alloc {
    static void *operator new(std::size_t n) { return cb_rt_alloc(n); }
    static void operator delete(void *p, std::size_t n) { cb_rt_free(p, n); }
};

// The innermost suspended coroutine of a top-level one: what the driver resumes.
struct slot {
    std::coroutine_handle<> innermost;
};

// co_await suspend_to{&slot}: a leaf suspension point.
struct suspend_to {
    slot *s;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) noexcept
    {
        s->innermost = h;
        cb_rt_count_suspension();
    }
    void await_resume() const noexcept {}
};

template <class T> class task {
  public:
    struct promise_type : frame_alloc {
        T value{};
        std::coroutine_handle<> parent; // who awaits this task; none for a top-level one
        task get_return_object() { return task{handle::from_promise(*this)}; }
        std::suspend_always initial_suspend() noexcept { return {}; }
        struct final_awaiter {
            bool await_ready() const noexcept { return false; }
            std::coroutine_handle<> await_suspend(std::coroutine_handle<promise_type> h) noexcept
            {
                std::coroutine_handle<> p = h.promise().parent;
                return p ? p : std::noop_coroutine();
            }
            void await_resume() const noexcept {}
        };
        final_awaiter final_suspend() noexcept { return {}; }
        void return_value(T v) noexcept { value = v; }
        void unhandled_exception() noexcept { std::abort(); }
    };
    using handle = std::coroutine_handle<promise_type>;

    task() = default;
    explicit task(handle h) : h_(h) {}
    task(task &&o) noexcept : h_(std::exchange(o.h_, {})) {}
    task &operator=(task &&o) noexcept
    {
        if (this != &o) {
            if (h_)
                h_.destroy();
            h_ = std::exchange(o.h_, {});
        }
        return *this;
    }
    task(const task &) = delete;
    ~task()
    {
        if (h_)
            h_.destroy();
    }

    // Awaiting a task starts it: symmetric transfer into the child.
    bool await_ready() const noexcept { return false; }
    std::coroutine_handle<> await_suspend(std::coroutine_handle<> parent) noexcept
    {
        h_.promise().parent = parent;
        return h_;
    }
    T await_resume() const noexcept { return h_.promise().value; }

    // For a driver: start a top-level task, and whether it has finished.
    void start() { h_.resume(); }
    bool done() const { return h_.done(); }
    T result() const { return h_.promise().value; }
    explicit operator bool() const { return bool(h_); }

  private:
    handle h_;
};

// A recursive generator over tasks: the producer is a tree of tasks awaiting each other (the
// recursion); co_await g.yield(v) stores v, records the innermost handle and suspends straight to
// the consumer, whose next() resumes that handle: one suspension per value at any depth, no
// re-yielding through the levels (as cppcoro's recursive_generator).
template <class T> class generator {
  public:
    suspend_to yield(T v)
    {
        value_ = v;
        return suspend_to{&slot_};
    }
    // Starts the producer (first call) or resumes it; false once it has finished.
    bool next()
    {
        if (!started_) {
            started_ = true;
            root_.start();
        } else {
            slot_.innermost.resume();
        }
        return !root_.done();
    }
    T value() const { return value_; }
    void set_root(task<int> &&t) { root_ = std::move(t); }

  private:
    task<int> root_;
    slot slot_;
    T value_{};
    bool started_ = false;
};

} // namespace cbx

#endif
