// await (workloads/await.c): an async task makes `calls` top-level calls in sequence, each a
// chain of `depth` nested async methods whose innermost awaits a value. One call in
// `suspend_every` finds it missing: it awaits a Slot that the driver fills and resumes (one
// suspension); the others have the value at once and return without awaiting, so their Task is
// complete when it comes back and every caller's await takes C#'s fast path (IsCompleted: no
// continuation registered, no suspension), as the thread's "depends on IsCompleted" says. Each
// call still allocates its Task (no ValueTask here). One op = one top-level call.
using System.Threading.Tasks;

static class Await
{
    sealed class Instance : IInstance
    {
        public ulong calls, every, i, sum;
        public long depth;
        public readonly Slot value = new Slot();

        static ulong Arg(ulong i) { return i * 0x2545f4914f6cdd1dUL + 0x1234567; }
        public static ulong Value(ulong i) { return (i ^ 0x5bd1e995UL) * 0x9e3779b97f4a7c15UL; }
        // (v ^ level) * 0x100000001b3 + 0x0c
        static ulong Down(ulong v, long level)
        {
            return (v ^ (ulong)level) * 0x100000001b3UL + 0x0c;
        }
        // (v rotl 7) + level
        static ulong Up(ulong v, long level) { return ((v << 7) | (v >> 57)) + (ulong)level; }

        public bool Suspends(ulong k) { return every != 0 && k % every == every - 1; }

        async Task<ulong> Chain(long level, ulong v)
        {
            if (level < depth)
                return Up(await Chain(level + 1, Down(v, level)), level);
            ulong got;
            if (Suspends(i)) {
                Rt.Suspensions++;
                got = await value; // the driver delivers it
            } else {
                got = Value(i); // already there: no await
            }
            return Up(v + got, level);
        }

        public async Task Loop()
        {
            for (i = 0; i < calls; i++)
                sum = Rt.Mix(sum, await Chain(0, Arg(i)));
        }

        public void Run()
        {
            Task t = Loop();
            while (!t.IsCompleted)
                value.Resume(Value(i)); // the value arrives: the suspended call resumes
            t.GetAwaiter().GetResult(); // rethrows a fault
        }

        public void Finish(out ulong ops, out ulong checksum)
        {
            ops = calls;
            checksum = sum;
        }
    }

    public static IInstance Setup(Params p)
    {
        string k = p.Choice("suspend_every", "1", "10", "100", "never");
        return new Instance { calls = (ulong)p.Int("calls"), depth = p.Int("depth"),
                              every = k == "never" ? 0UL : ulong.Parse(k) };
    }
}
