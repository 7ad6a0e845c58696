// corobench-csharp: the corobench workloads on C# async/await, compiled by Mono's mcs and run
// on the Mono runtime, driven by the external runtime protocol (docs/external.md): one JSON
// request as the argument (or on stdin), one JSON reply on stdout. Repetitions are timed with
// Stopwatch.GetTimestamp() (CLOCK_MONOTONIC); setup and finish of every instance stay outside.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Reflection;
using System.Runtime.InteropServices;
using System.Text;

static class Program
{
    const string Protocol = "corobench-external/1";

    static readonly Dictionary<string, Func<Params, IInstance>> workloads =
        new Dictionary<string, Func<Params, IInstance>> {
            {"pingpong", Pingpong.Setup},
            {"recursive", Recursive.Setup},
            {"spawn", Spawn.Setup},
            {"io", Io.Setup},
            {"await", Await.Setup},
            {"fault", Fault.Setup},
            {"forkjoin", Forkjoin.Setup},
            {"yieldstorm", Yieldstorm.Setup},
        };

    [DllImport("libc")]
    static extern int getrusage(int who, long[] usage);

    // The runtime and the compiler: Mono's display name, and mcs's version and language version
    // as the Makefile recorded them when it built this program (BuildInfo.cs).
    static string RuntimeName()
    {
        Type t = Type.GetType("Mono.Runtime");
        MethodInfo m = t == null ? null
                                 : t.GetMethod("GetDisplayName",
                                               BindingFlags.NonPublic | BindingFlags.Static);
        string mono = m == null ? "unknown" : (string)m.Invoke(null, null);
        return "mono " + mono + "; " + BuildInfo.Compiler + Sched.Described();
    }

    static void Answer(StringBuilder body)
    {
        long[] ru = new long[18]; // struct rusage: two timevals, then ru_maxrss (KiB)
        long rss = getrusage(0, ru) == 0 ? ru[4] * 1024 : 0;
        var o = new StringBuilder();
        o.Append("{\"protocol\":").Append(Json.Quote(Protocol));
        o.Append(",\"runtime\":").Append(Json.Quote(RuntimeName()));
        o.Append(body);
        o.Append(",\"peak_rss_bytes\":").Append(rss).Append("}\n");
        Stream stdout = Console.OpenStandardOutput();
        byte[] b = Encoding.UTF8.GetBytes(o.ToString());
        stdout.Write(b, 0, b.Length);
        stdout.Flush();
        Environment.Exit(0);
    }

    static void Fail(string message, bool unsupported = false)
    {
        var b = new StringBuilder();
        b.Append(",\"error\":").Append(Json.Quote(message));
        b.Append(",\"unsupported\":").Append(unsupported ? "true" : "false");
        b.Append(",\"suspensions\":0,\"coroutine_bytes\":null");
        Answer(b);
    }

    static IInstance SetupOrFail(Func<Params, IInstance> setup, Params p)
    {
        try {
            return setup(p);
        } catch (UnsupportedException e) {
            Fail(e.Message, true);
        } catch (Exception e) {
            Fail(e.Message);
        }
        return null;
    }

    // A number of the request, or dflt when it is absent; integral: it must be an integer.
    static double Number(Dictionary<string, object> req, string key, double dflt, bool integral)
    {
        object v;
        if (!req.TryGetValue(key, out v) || v == null)
            return dflt;
        if (v is long || (!integral && v is double))
            return Convert.ToDouble(v);
        Fail("csharp: " + key + " " + v + " (valid: " + (integral ? "an integer" : "a number") + ")");
        return 0;
    }

    static long Num(Dictionary<string, object> req, string key, long dflt)
    {
        return (long)Number(req, key, dflt, true);
    }

    static void Collect()
    {
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
    }

    // The process's anonymous resident memory in bytes (RssAnon in /proc/self/status, statm's
    // resident - shared: the C cells' definition), or -1 if unreadable.
    static long RssAnon()
    {
        try {
            foreach (string line in File.ReadAllLines("/proc/self/status"))
                if (line.StartsWith("RssAnon:", StringComparison.Ordinal)) {
                    string kb = line.Substring(8).Trim();
                    kb = kb.Substring(0, kb.IndexOf(' '));
                    return long.Parse(kb, CultureInfo.InvariantCulture) * 1024;
                }
        } catch (Exception) {
        }
        return -1;
    }

    // One instance run before the timed repetitions: at the workload's rest point, the managed
    // heap grown since setup (each read after a full collection), per coroutine alive; and the
    // process's anonymous resident memory grown with the coroutines alive (rss, -1: unreadable;
    // alive 0: no rest point), for the harness to divide.
    static double? MemoryPass(Func<Params, IInstance> setup, Params p, out ulong alive,
                              out long rss)
    {
        IInstance inst = SetupOrFail(setup, p);
        long start = GC.GetTotalMemory(true), rss0 = RssAnon();
        double? per = null;
        ulong n = 0;
        long r = -1;
        Rt.RestHook = a => {
            per = (GC.GetTotalMemory(true) - start) / (double)a;
            long rss1 = RssAnon();
            n = a;
            if (rss0 >= 0 && rss1 >= 0)
                r = rss1 - rss0;
        };
        inst.Run();
        Rt.RestHook = null;
        ulong ops, sum;
        inst.Finish(out ops, out sum);
        alive = n;
        rss = r;
        return per;
    }

    static double Ns(long ticks) { return ticks * (1e9 / Stopwatch.Frequency); }

    public static void Main(string[] args)
    {
        Dictionary<string, object> req = null;
        try {
            string text = args.Length > 0 ? args[args.Length - 1] : Console.In.ReadToEnd();
            req = Json.Parse(text) as Dictionary<string, object>;
            if (req == null)
                throw new FormatException("not a JSON object");
        } catch (Exception e) {
            Fail("csharp: bad request: " + e.Message);
        }
        object v;
        string proto = req.TryGetValue("protocol", out v) ? v as string : null;
        if (proto != Protocol)
            Fail("csharp: protocol '" + proto + "' (valid: " + Protocol + ")");
        string name = req.TryGetValue("workload", out v) ? v as string : null;
        Func<Params, IInstance> setup;
        if (name == null || !workloads.TryGetValue(name, out setup)) {
            Fail("csharp: no body for workload '" + name + "'", true);
            return;
        }
        var p = new Params(req.TryGetValue("params", out v) ? v as Dictionary<string, object>
                                                            : null);
        bool auto = !req.TryGetValue("batch", out v) || v == null || "auto".Equals(v);
        long batch = auto ? 1 : Num(req, "batch", 1);
        if (batch < 1)
            Fail("csharp: batch " + batch + " (valid: \"auto\" or an integer >= 1)");
        long maxBatch = Math.Max(1, Num(req, "max_batch", 1));
        long reps = Num(req, "reps", 0), warmup = Num(req, "warmup", 0);
        if (reps < 1)
            Fail("csharp: reps " + reps + " (valid: 1 or more)");
        double minRepMs = Number(req, "min_rep_ms", 10, false),
               warmupMs = Number(req, "warmup_ms", 0, false);
        var reply = new StringBuilder();
        try {
            double? per = null;
            if (req.TryGetValue("memory", out v) && v is bool && (bool)v) {
                ulong alive;
                long rss;
                per = MemoryPass(setup, p, out alive, out rss);
                if (alive > 0)
                    reply.Append(",\"rest_coroutines\":").Append(alive);
                if (alive > 0 && rss >= 0)
                    reply.Append(",\"rest_rss_bytes\":").Append(rss);
                reply.Append(",\"coroutine_bytes_source\":").Append(Json.Quote(
                    "GC.GetTotalMemory(true) (Mono's SGen heap after a full collection) grown " +
                    "by the rest point, per coroutine"));
            }
            reply.Append(",\"coroutine_bytes\":").Append(per.HasValue ? Json.Num(per.Value) : "null");
            ulong firstOps = 0, firstSum = 0, firstSusp = 0;
            bool have = false;
            var samples = new List<double>();
            var insts = new List<IInstance>();
            // Warm-up repetitions go on until `warmup` of them are done and warmup_ms has
            // passed (Mono compiles each method on first call, and its code and the heap settle
            // meanwhile); each one re-chooses the batch.
            long warmupEnd = Stopwatch.GetTimestamp() +
                             (long)(warmupMs * 1e-3 * Stopwatch.Frequency);
            long warmed = 0;
            for (long rep = 0; rep < warmed + reps; rep++) {
                bool warming = rep == warmed &&
                               (warmed < warmup || Stopwatch.GetTimestamp() < warmupEnd);
                if (warming)
                    warmed++;
                insts.Clear();
                for (long i = 0; i < batch; i++)
                    insts.Add(SetupOrFail(setup, p));
                Collect(); // the previous repetition's garbage is not this one's cost
                ulong s0 = Rt.Suspensions;
                long t0 = Stopwatch.GetTimestamp();
                foreach (IInstance inst in insts)
                    inst.Run();
                double ns = Ns(Stopwatch.GetTimestamp() - t0);
                ulong susp = Rt.Suspensions - s0;
                foreach (IInstance inst in insts) {
                    ulong ops, sum;
                    inst.Finish(out ops, out sum);
                    if (!have) {
                        firstOps = ops;
                        firstSum = sum;
                        have = true;
                    } else if (ops != firstOps || sum != firstSum) {
                        Fail(string.Format("nondeterministic result: checksum 0x{0:x16} then 0x{1:x16}",
                                           firstSum, sum));
                    }
                }
                if (rep == 0)
                    firstSusp = susp / (ulong)batch;
                if (susp != firstSusp * (ulong)batch)
                    Fail(string.Format("nondeterministic suspensions: {0} per run, then {1} over {2} runs",
                                       firstSusp, susp, batch));
                if (warming) {
                    if (auto) { // as the C cells: one repetition lasts at least min_rep_ms
                        double perRun = Math.Max(1.0, ns / batch);
                        double want = minRepMs * 1e6 / perRun;
                        batch = want < 1 ? 1 : Math.Min(maxBatch, (long)Math.Ceiling(want));
                    }
                    continue;
                }
                samples.Add(ns / ((double)firstOps * batch));
            }
            reply.Append(",\"error\":null");
            reply.Append(",\"ops\":").Append(firstOps);
            reply.Append(",\"checksum\":\"0x").Append(firstSum.ToString("x16")).Append('"');
            reply.Append(",\"suspensions\":").Append(firstSusp);
            reply.Append(",\"batch\":").Append(batch);
            reply.Append(",\"samples_ns_per_op\":[");
            for (int i = 0; i < samples.Count; i++)
                reply.Append(i > 0 ? "," : "").Append(Json.Num(samples[i]));
            reply.Append(']');
        } catch (UnsupportedException e) {
            Fail(e.Message, true);
        } catch (Exception e) {
            Exception inner = e is AggregateException ? e.InnerException ?? e : e;
            Fail(inner.Message);
        }
        Answer(reply);
    }
}
