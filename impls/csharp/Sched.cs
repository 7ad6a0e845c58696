// What forkjoin and yieldstorm (docs/sched.md, "Workloads") share in C#: their tasks run on
// Mono's thread pool (a global queue, and a work-stealing queue per pool thread that a task
// started from a pool thread goes to), and the definition's mix.
// `workers` W: Mono's ThreadPool.SetMaxThreads refuses fewer threads than CPUs (it returned false
// for 1 on the 2-CPU VM), and a ConcurrentExclusiveSchedulerPair limited to W cost 10 to 16 us a
// yield there against 0.7 to 0.9 on the pool itself, so W is the CPUs the process may run on:
// before the pool starts, the process's affinity is cut to the first W CPUs it had (pool
// threads inherit it; Environment.ProcessorCount then says W), and SetMinThreads(W, W) starts W
// pool threads at once. More workers than CPUs keeps the CPUs and raises the threads only.
// `queue` can only be steal: the pool has the queues it has.
using System;
using System.Runtime.InteropServices;
using System.Threading;

static class Sched
{
    [DllImport("libc", SetLastError = true)]
    static extern int sched_getaffinity(int pid, IntPtr size, ulong[] mask);
    [DllImport("libc", SetLastError = true)]
    static extern int sched_setaffinity(int pid, IntPtr size, ulong[] mask);

    static long applied; // the W this process runs with, once set

    // What the runtime's name adds for a scheduler workload: the pool's CPUs and threads.
    public static string Described()
    {
        if (applied == 0)
            return "";
        ThreadPool.GetMinThreads(out int min, out int io);
        return "; thread pool on " + Environment.ProcessorCount + " CPUs, min threads " + min +
               " (workers=" + applied + ")";
    }

    // splitmix64's finaliser on x plus the golden gamma: the definition's mix (cb_swl_mix).
    public static ulong Mix(ulong x)
    {
        x += 0x9e3779b97f4a7c15UL;
        x = (x ^ x >> 30) * 0xbf58476d1ce4e5b9UL;
        x = (x ^ x >> 27) * 0x94d049bb133111ebUL;
        return x ^ x >> 31;
    }

    // Sets the process up for the point's W (once: a process runs one cell); a queue other than
    // steal is unsupported.
    public static void For(Params p, string workload)
    {
        long w = p.Int("workers");
        string q = p.Choice("queue", "steal", "wfcq", "ck");
        if (q != "steal")
            throw new UnsupportedException("csharp: " + workload + " queue=" + q + ": Mono's " +
                                           "thread pool has its own run queues (a global queue " +
                                           "and a work-stealing queue per thread), so only " +
                                           "queue=steal describes it");
        if (w < 1 || w > 1024)
            throw new ArgumentException("parameter workers " + w + " (valid: 1 to 1024)");
        if (applied == w)
            return;
        if (applied != 0)
            throw new ArgumentException("workers " + w + " after " + applied + " in one process " +
                                        "(the pool's CPUs are set once)");
        var had = new ulong[16];
        var keep = new ulong[16];
        if (sched_getaffinity(0, (IntPtr)128, had) != 0)
            throw new InvalidOperationException("sched_getaffinity: errno " +
                                                Marshal.GetLastWin32Error());
        long n = 0;
        for (int b = 0; b < 1024 && n < w; b++)
            if ((had[b / 64] >> (b % 64) & 1) != 0) {
                keep[b / 64] |= 1UL << (b % 64);
                n++;
            }
        if (sched_setaffinity(0, (IntPtr)128, keep) != 0)
            throw new InvalidOperationException("sched_setaffinity: errno " +
                                                Marshal.GetLastWin32Error());
        int workers = (int)w, io;
        ThreadPool.GetMinThreads(out int unused, out io);
        ThreadPool.SetMinThreads(workers, io);
        applied = w;
    }
}
