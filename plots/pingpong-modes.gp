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
W = 1300
H = 600
load plotdir.'/common.gp'
set xlabel "depth"
set ylabel "mispredicted returns per op"
set key top left inside
set multiplot layout 1,2 title "pingpong: mispredicted returns per op (solid: ".model.", dashed: hardware counter)"
do for [f in sym." ".asym] {
    set title (f eq sym ? "mode=symmetric (1 switch per op)" : "mode=asymmetric (2 switches per op)")
    plot for [i=0:*] f index i using 1:2 with linespoints linetype i+1 title columnheader(1), \
         for [i=0:*] f index i using 1:3 with lines linetype i+1 dashtype 2 notitle
}
unset multiplot
