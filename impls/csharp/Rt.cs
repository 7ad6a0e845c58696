// What every workload shares with the driver (Main.cs): the suspension count, the rest point,
// the checksum step, and the one scheduler every workload runs on.
//
// Scheduling: the program runs on one thread with no SynchronizationContext, so an await on an
// incomplete Task registers its continuation on that Task and the Task's completion runs it at
// once, on the completing stack, as .NET does. The hand-offs between coroutines go through Slot:
// a coroutine awaiting a Slot parks its continuation there; Give puts it on the run queue
// (drained by Rt.Drain, the driver loop), Resume runs it at once. Nothing goes to the thread
// pool, so every run is the same sequence of steps and the suspension count is exact.
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;

static class Rt
{
    // Points where an async method gives up control by the workload's protocol (an await on a
    // Slot not yet given, an EAGAIN in io): one add per suspension, as the C runtimes charge it.
    public static ulong Suspensions;
    // Set by the memory pass: called at a workload's rest point with the coroutines alive.
    public static Action<ulong> RestHook;

    public static void AtRest(ulong alive)
    {
        if (RestHook != null)
            RestHook(alive);
    }

    // The checksum step of workloads/workload.h: ((h rotl 23) ^ v) * 0x9e3779b97f4a7c15.
    public static ulong Mix(ulong h, ulong v)
    {
        return (((h << 23) | (h >> 41)) ^ v) * 0x9e3779b97f4a7c15UL;
    }

    static readonly Queue<Action> ready = new Queue<Action>();

    public static void Post(Action a) { ready.Enqueue(a); }

    // Runs continuations until none is ready.
    public static void Drain()
    {
        while (ready.Count > 0)
            ready.Dequeue()();
    }

    public static void Reset() { ready.Clear(); }
}

// A one-value hand-off point owned by one coroutine, awaited with `await slot`.
sealed class Slot : ICriticalNotifyCompletion
{
    Action cont;
    ulong value;
    bool ready;

    public Slot GetAwaiter() { return this; }
    public bool IsCompleted { get { return ready; } }
    public ulong GetResult()
    {
        ready = false;
        return value;
    }
    public void OnCompleted(Action c) { cont = c; }
    public void UnsafeOnCompleted(Action c) { cont = c; }
    public bool Waiting { get { return cont != null; } }

    // Hands v over; the coroutine waiting here (if any) goes to the run queue.
    public void Give(ulong v)
    {
        value = v;
        ready = true;
        Action c = cont;
        cont = null;
        if (c != null)
            Rt.Post(c);
    }

    // Hands v over and runs the waiting coroutine now, until its next suspension or its end.
    public void Resume(ulong v)
    {
        Action c = cont;
        if (c == null)
            throw new InvalidOperationException("resume of a coroutine that is not suspended");
        cont = null;
        value = v;
        ready = true;
        c();
    }
}

// A workload instance: made by setup (untimed), Run (timed), Finish (untimed: ops and checksum).
interface IInstance
{
    void Run();
    void Finish(out ulong ops, out ulong checksum);
}

// A setup error that makes the cell unsupported rather than failed: the point cannot be
// compared with the C cells.
sealed class UnsupportedException : Exception
{
    public UnsupportedException(string why) : base(why) { }
}
