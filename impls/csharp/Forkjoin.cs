// forkjoin (docs/sched.md, "Workloads"): every node an async method that starts one task per
// child on Mono's thread pool (Task.Run; Sched.For: `workers` CPUs), awaits
// them all with Task.WhenAll and returns its value plus their results. A suspension per inner
// node, counted by the definition (an await of children that had already finished counts too),
// once the tree is joined, so no counter is shared between threads.
using System.Threading.Tasks;

static class Forkjoin
{
    struct Result
    {
        public ulong sum, tasks, inner;
    }

    sealed class Instance : IInstance
    {
        public ulong fanout, leafWork, q;
        public long depth;
        public bool unbalanced;
        Result r;

        ulong Children(ulong id, long level)
        {
            if (level >= depth)
                return 0;
            return !unbalanced || level == 0 || Sched.Mix(id) % 1000 < q ? fanout : 0;
        }

        Task<Result> Spawn(ulong id, long level)
        {
            return Task.Run(() => Node(id, level));
        }

        async Task<Result> Node(ulong id, long level)
        {
            ulong n = Children(id, level), v = Sched.Mix(id);
            if (n == 0) {
                for (ulong k = 0; k < leafWork; k++)
                    v = Sched.Mix(v);
                return new Result { sum = v, tasks = 1, inner = 0 };
            }
            var kids = new Task<Result>[n];
            for (ulong i = 0; i < n; i++)
                kids[i] = Spawn(id * fanout + i + 1, level + 1);
            Result[] got = await Task.WhenAll(kids);
            var r = new Result { sum = v, tasks = 1, inner = 1 };
            foreach (Result k in got) {
                r.sum += k.sum;
                r.tasks += k.tasks;
                r.inner += k.inner;
            }
            return r;
        }

        public void Run()
        {
            r = Task.Run(() => Node(0, 0)).GetAwaiter().GetResult();
            Rt.Suspensions += r.inner; // on the driver's thread, after the join
        }

        public void Finish(out ulong ops, out ulong checksum)
        {
            ops = r.tasks;
            checksum = r.sum;
        }
    }

    public static IInstance Setup(Params p)
    {
        Sched.For(p, "forkjoin");
        return new Instance { fanout = (ulong)p.Int("fanout"), depth = p.Int("depth"),
                              leafWork = (ulong)p.Int("leaf_work"), q = (ulong)p.Int("q"),
                              unbalanced = p.Choice("shape", "balanced", "unbalanced") ==
                                           "unbalanced" };
    }
}
