// recursive (workloads/recursive.c): a complete binary tree of `height` levels walked in order
// by a recursive async method; each node's value is handed to the consumer at an await (the
// yield: one op, one suspension). mcs (Mono 6.8) implements C# up to 7.2 and has no async
// streams (IAsyncEnumerable, C# 8), so this is Task recursion: every level an async Task that
// awaits its subtrees, and the leaf's continuation resumed by the consumer; a finished subtree's
// Task runs its parent's continuation at once.
using System.Threading.Tasks;

static class Recursive
{
    sealed class Instance : IInstance
    {
        public long height;
        public ulong outv, sum;
        public readonly Slot yield = new Slot();

        // id * 0x9e3779b97f4a7c15 ^ (id >> 3)
        static ulong Value(ulong id) { return id * 0x9e3779b97f4a7c15UL ^ (id >> 3); }

        async Task Walk(ulong id, long level)
        {
            if (level + 1 < height)
                await Walk(2 * id, level + 1);
            Rt.Suspensions++;
            outv = Value(id);
            await yield;
            if (level + 1 < height)
                await Walk(2 * id + 1, level + 1);
        }

        public void Run()
        {
            Task t = Walk(1, 0); // runs to the leftmost leaf
            Rt.AtRest(1); // the chain of async methods is at its deepest
            while (!t.IsCompleted) {
                sum = Rt.Mix(sum, outv);
                yield.Resume(0);
            }
            t.GetAwaiter().GetResult(); // rethrows a fault
        }

        public void Finish(out ulong ops, out ulong checksum)
        {
            ops = (1UL << (int)height) - 1;
            checksum = sum;
        }
    }

    public static IInstance Setup(Params p)
    {
        return new Instance { height = p.Int("height") };
    }
}
