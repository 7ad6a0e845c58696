// pingpong (workloads/pingpong.c): async methods A and B hand a value back and forth
// `switches` times. Each calls down a chain of `depth` async methods and, at the bottom, hands
// its value to the other side (the other's Slot: its continuation goes to the run queue) and
// awaits its own Slot. One op = one hand-off (one suspension). Awaiting the incomplete Slot
// returns an incomplete Task up the whole chain; the other side's resumption runs the bottom
// level's continuation, and every level's completion runs its caller's continuation at once,
// as C#'s awaits do. `sites` only picks the salt (B uses A's with sites=same): which code copy
// runs is Mono's business.
using System.Threading.Tasks;

static class Pingpong
{
    sealed class Shared
    {
        public ulong remaining, sum, final;
        public long depth;
        public bool done;
    }

    sealed class Side
    {
        public Shared sh;
        public ulong salt;
        public readonly Slot slot = new Slot();
        public Side other;
        public Task loop;
    }

    // (v ^ level) * 0x100000001b3 + salt
    static ulong Down(ulong v, long level, ulong salt)
    {
        return (v ^ (ulong)level) * 0x100000001b3UL + salt;
    }
    // (v rotl 7) + level
    static ulong Up(ulong v, long level) { return ((v << 7) | (v >> 57)) + (ulong)level; }

    static Slot Handoff(Side me, ulong v)
    {
        Rt.Suspensions++;
        me.other.slot.Give(v);
        return me.slot;
    }

    static ulong Receive(Side me, ulong got)
    {
        me.sh.sum = Rt.Mix(me.sh.sum, got);
        return got;
    }

    // Chain level `level` (1..depth).
    static async Task<ulong> Chain(Side me, long level, ulong v)
    {
        if (level == me.sh.depth)
            return Receive(me, await Handoff(me, v));
        return Up(await Chain(me, level + 1, Down(v, level, me.salt)), level);
    }

    static async Task Loop(Side me)
    {
        Shared sh = me.sh;
        ulong v = await me.slot; // A: from Run; B: A's first hand-off
        while (sh.remaining > 0) {
            sh.remaining--;
            if (sh.depth == 0) // level 0 is the loop itself
                v = Receive(me, await Handoff(me, v));
            else
                v = Up(await Chain(me, 1, Down(v, 0, me.salt)), 0);
        }
        sh.final = v;
        sh.done = true;
    }

    sealed class Instance : IInstance
    {
        public Shared sh;
        public Side[] side;
        public ulong switches;

        public void Run()
        {
            side[0].slot.Give(0x1234567890abcdefUL);
            Rt.Drain();
            foreach (Side s in side)
                if (s.loop.IsFaulted)
                    s.loop.GetAwaiter().GetResult(); // rethrows its exception
            if (!sh.done)
                throw new System.InvalidOperationException("pingpong: the run queue ran dry " +
                                                           "before the last switch");
        }

        public void Finish(out ulong ops, out ulong checksum)
        {
            ops = switches;
            checksum = Rt.Mix(sh.sum, sh.final);
        }
    }

    public static IInstance Setup(Params p)
    {
        long depth = p.Int("depth"), switches = p.Int("switches");
        string sites = p.Choice("sites", "distinct", "same");
        var sh = new Shared { remaining = (ulong)switches, depth = depth };
        var w = new Instance { sh = sh, switches = (ulong)switches, side = new Side[2] };
        ulong[] salts = { 0x0a, sites == "same" ? 0x0aUL : 0x0bUL };
        for (int i = 0; i < 2; i++)
            w.side[i] = new Side { sh = sh, salt = salts[i] };
        w.side[0].other = w.side[1];
        w.side[1].other = w.side[0];
        foreach (Side s in w.side) // both exist before the clock starts, as C's coroutines
            s.loop = Loop(s);
        return w;
    }
}
