# pingpong, sites=distinct: mispredicted returns per op (one hand-over) against depth, symmetric
# switching (a side transfers to the other: one switch per op) and asymmetric (a side yields to
# the root, which resumes the other: two switches per op) side by side: the return-stack
# simulator's count (solid; docs/rsb.md) and the hardware counter's (dashed) where counted.
# usage: gnuplot -e "sym='s.dat'; asym='a.dat'; model='32-entry RSB'; out='x.png'" plots/pingpong-modes.gp
# data: `corobench export R.json --workload pingpong --x depth --where sites=distinct
#        --where variant=plain --where mode=M --y rsbsim.mispredicted_per_op
#        --y counters.ret-mispredicts.per_op`
if (!exists("plotdir")) plotdir = 'plots'
if (!exists("model")) model = 'simulated RSB'
if (!exists("hw")) hw = 1
if (!exists("sym_lt")) sym_lt = ''
if (!exists("asym_lt")) asym_lt = ''
NX = 2
load plotdir.'/common.gp'
set xlabel "depth"
set ylabel "mispredicted returns per op"
set multiplot layout 1,2 title "pingpong: mispredicted returns per op (solid: ".model.(hw ? ", dashed: hardware counter)" : "; the results have no hardware count)")
T1 = "mode=symmetric (1 switch per op)"
T2 = "mode=asymmetric (2 switches per op)"
do for [k=1:2] {
    f = (k == 1 ? sym : asym)
    l = (k == 1 ? sym_lt : asym_lt)
    set title (k == 1 ? T1 : T2)
    stats f using 2 nooutput
    eval LOGY
    plot for [i=0:*] f index i using 1:2 with linespoints linetype LT(l, i) title columnheader(1), \
         for [i=0:*] f index i using 1:3 with lines linetype LT(l, i) dashtype 2 notitle
}
unset multiplot
