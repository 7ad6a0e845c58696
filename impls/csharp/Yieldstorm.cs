// yieldstorm (docs/sched.md, "Workloads"): `coros` async methods started by the run on Mono's
// thread pool (Task.Run; Sched.For: `workers` CPUs), each awaiting Task.Yield() `yields` times:
// the continuation is queued on the pool and runs when a pool thread takes it, perhaps another. Each state mixed after its yield; one op = one yield, each one
// suspension, counted once the coroutines are joined.
using System.Threading.Tasks;

static class Yieldstorm
{
    sealed class Instance : IInstance
    {
        public ulong coros, yields;
        ulong[] states;

        async Task Coro(ulong id)
        {
            ulong s = Sched.Mix(id);
            for (ulong k = 0; k < yields; k++) {
                await Task.Yield();
                s = Sched.Mix(s ^ k);
            }
            states[id] = s;
        }

        async Task<int> All()
        {
            var all = new Task[coros];
            for (ulong id = 0; id < coros; id++) {
                ulong i = id;
                all[id] = Task.Run(() => Coro(i));
            }
            await Task.WhenAll(all);
            return 0;
        }

        public void Run()
        {
            states = new ulong[coros];
            Task.Run(All).GetAwaiter().GetResult();
            Rt.Suspensions += coros * yields;
        }

        public void Finish(out ulong ops, out ulong checksum)
        {
            ulong sum = 0;
            foreach (ulong s in states)
                sum += s;
            ops = coros * yields;
            checksum = sum;
        }
    }

    public static IInstance Setup(Params p)
    {
        Sched.For(p, "yieldstorm");
        return new Instance { coros = (ulong)p.Int("coros"), yields = (ulong)p.Int("yields") };
    }
}
