// fault (workloads/fault.c, docs/fault.md): the harness's self-test, not a benchmark. An async
// method awaits once (the suspension) and, resumed, commits the fault `kind` names inside itself,
// in C#'s terms. It is an `async void` method, which nobody awaits: an exception escaping it is
// rethrown on the thread pool, where nothing catches it, and Mono ends the process; the program
// never replies and the harness must record the cell with the reason:
//   segv      a store through null: Mono turns the SIGSEGV into a NullReferenceException
//   overflow  an endless chain of async calls, each started synchronously inside its caller, on
//             the thread's stack
//   hang      spins forever (the harness's timeout must end it)
//   abort     libc's abort(): SIGABRT, with its default action restored first (Mono's handler
//             would print its crash report, attach a debugger if one is installed, and write
//             to stdout)
//   exit      Environment.Exit(0): the program ends "successfully" without a reply
using System;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;

static class Fault
{
    [DllImport("libc")]
    static extern void abort();
    [DllImport("libc")]
    static extern IntPtr signal(int sig, IntPtr handler);
    const int SIGABRT = 6;

    sealed class Hole
    {
        public long value;
    }

    static Hole target = null; // stays null: the store below is through null
    public static long Sink;

    static async Task<long> Nest(long n) { return 1 + await Nest(n + 1); }

    // Never returns normally.
    static async Task Commit(string kind)
    {
        switch (kind) {
        case "segv": target.value = 1; break;
        case "overflow": Sink = await Nest(0); break;
        case "hang": for (;;) Sink++;
        case "abort":
            signal(SIGABRT, IntPtr.Zero); // SIG_DFL
            abort();
            break;
        case "exit": Environment.Exit(0); break;
        }
        throw new InvalidOperationException("fault: kind " + kind + " did not fault"); // a bug here
    }

    sealed class Instance : IInstance
    {
        public string kind;
        public readonly Slot slot = new Slot();

        async void Coroutine()
        {
            Rt.Suspensions++;
            await slot; // the one real suspension
            await Commit(kind);
        }

        public void Run()
        {
            Coroutine(); // runs to its await
            slot.Resume(0); // the second resume: the coroutine faults
            Thread.Sleep(Timeout.Infinite); // the thread pool's rethrow ends the program
        }

        public void Finish(out ulong ops, out ulong checksum) // never reached
        {
            ops = 1;
            checksum = Rt.Mix(0, 1);
        }
    }

    public static IInstance Setup(Params p)
    {
        return new Instance { kind = p.Choice("kind", "segv", "overflow", "hang", "abort", "exit") };
    }
}
