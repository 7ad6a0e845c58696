# pingpong: mispredicted returns per switch against depth, for sites=distinct and sites=same side
# by side: the return-stack simulator's count (solid; docs/rsb.md) and the hardware counter's
# (dashed) where the results have it.
# usage: gnuplot -e "distinct='d.dat'; same='s.dat'; model='32-entry RSB'; out='x.png'" plots/pingpong-mispredict.gp
# data: `corobench export R.json --workload pingpong --x depth --where sites=S --where variant=plain
#        --y rsbsim.mispredicted_per_op --y counters.ret-mispredicts.per_op`
if (!exists("plotdir")) plotdir = 'plots'
if (!exists("model")) model = 'simulated RSB'
if (!exists("hw")) hw = 1
if (!exists("distinct_lt")) distinct_lt = ''
if (!exists("same_lt")) same_lt = ''
NX = 2
load plotdir.'/common.gp'
set xlabel "depth"
set ylabel "mispredicted returns per switch"
set multiplot layout 1,2 title "pingpong: mispredicted returns per switch (solid: ".model.(hw ? ", dashed: hardware counter)" : "; the results have no hardware count)")
T1 = "sites=distinct"
T2 = "sites=same"
do for [k=1:2] {
    f = (k == 1 ? distinct : same)
    l = (k == 1 ? distinct_lt : same_lt)
    set title (k == 1 ? T1 : T2)
    stats f using 2 nooutput
    eval LOGY
    plot for [i=0:*] f index i using 1:2 with linespoints linetype LT(l, i) title columnheader(1), \
         for [i=0:*] f index i using 1:3 with lines linetype LT(l, i) dashtype 2 notitle
}
unset multiplot
