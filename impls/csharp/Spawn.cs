// spawn (workloads/spawn.c): n async methods are called; each awaits `depth` nested async calls,
// every level holding frame bytes of live locals (a ulong[] of frame/8 words: a C# local cannot
// have a run-time size, and a stackalloc cannot live across an await, so the level's state
// machine holds a reference to the array), and the innermost awaits its handle's Slot. With all
// n pending the driver is at the rest point; then it resumes each handle, which runs the chain
// to its end, and takes the Task's result. One op = one async method's whole life.
using System;
using System.Threading.Tasks;

static class Spawn
{
    sealed class Handle
    {
        public readonly Slot slot = new Slot();
        public Task<ulong> done;
    }

    sealed class Instance : IInstance
    {
        public ulong n, sum, outv;
        public long depth;
        public int words;
        public Handle[] handle;
        public ulong[] order; // order=random: resume order; null: creation order

        static ulong Word(ulong id, long level, int k)
        {
            return (id << 24 ^ (ulong)level << 12 ^ (ulong)k) * 0x9e3779b97f4a7c15UL;
        }

        async Task<ulong> Level(ulong id, long level, Handle hd)
        {
            var loc = new ulong[words];
            for (int k = 0; k < loc.Length; k++)
                loc[k] = Word(id, level, k);
            ulong v;
            if (level == depth) {
                Rt.Suspensions++;
                outv = id * 0xd6e8feb86659fd93UL + 1;
                v = await hd.slot;
            } else {
                v = await Level(id, level + 1, hd);
            }
            ulong acc = v + (ulong)level;
            foreach (ulong x in loc)
                acc = (acc ^ x) * 0x100000001b3UL;
            return acc;
        }

        public void Run()
        {
            for (ulong i = 0; i < n; i++) {
                var hd = new Handle();
                handle[i] = hd;
                hd.done = Level(i, 0, hd); // runs to its innermost await
                sum = Rt.Mix(sum, outv);
            }
            Rt.AtRest(n);
            for (ulong j = 0; j < n; j++) {
                ulong i = order != null ? order[j] : j;
                Handle hd = handle[i];
                hd.slot.Resume(i ^ 0x5bd1e9955bd1e995UL);
                sum = Rt.Mix(sum, hd.done.GetAwaiter().GetResult());
                handle[i] = null;
            }
        }

        public void Finish(out ulong ops, out ulong checksum)
        {
            ops = n;
            checksum = sum;
        }
    }

    // splitmix64's finaliser, as spawn.c's sp_hash (the seeded resume order).
    static ulong Hash(ulong x)
    {
        x += 0x9e3779b97f4a7c15UL;
        x = (x ^ x >> 30) * 0xbf58476d1ce4e5b9UL;
        x = (x ^ x >> 27) * 0x94d049bb133111ebUL;
        return x ^ x >> 31;
    }

    // spawn.c's order=random: a Fisher-Yates shuffle of 0..n-1 driven by Hash.
    static ulong[] Shuffle(ulong n, ulong seed)
    {
        var order = new ulong[n];
        for (ulong i = 0; i < n; i++)
            order[i] = i;
        ulong x = seed;
        for (ulong i = n - 1; i >= 1 && i < n; i--) {
            x = Hash(x);
            ulong j = x % (i + 1), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        return order;
    }

    public static IInstance Setup(Params p)
    {
        long n = p.Int("n"), depth = p.Int("depth"), frame = p.Int("frame");
        string layout = p.Choice("layout", "aligned", "offset");
        string order = p.Choice("order", "fifo", "random");
        long seed = p.Int("seed");
        if (layout != "aligned") // refused, as docs/memory.md asks of what cannot honour it
            throw new UnsupportedException("spawn: layout=offset moves C stacks and frames; " +
                                           "Mono places its objects itself (valid here: " +
                                           "layout=aligned)");
        if (frame % 8 != 0 || frame < 8 || frame > 65536)
            throw new ArgumentException("spawn: frame=" + frame + " is not a multiple of 8 " +
                                        "(valid: 8, 16, ..., 65536)");
        var w = new Instance { n = (ulong)n, depth = depth, words = (int)(frame / 8),
                               handle = new Handle[n] };
        if (order == "random")
            w.order = Shuffle((ulong)n, (ulong)seed);
        return w;
    }
}
