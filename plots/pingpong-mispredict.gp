# pingpong: mispredicted returns per switch against depth, for sites=distinct and sites=same side
# by side: the return-stack simulator's count (solid; docs/rsb.md) and the hardware counter's
# (dashed) where the results have it.
# usage: gnuplot -e "distinct='d.dat'; same='s.dat'; model='32-entry RSB'; out='x.png'" plots/pingpong-mispredict.gp
# data: `corobench export R.json --workload pingpong --x depth --where sites=S --where variant=plain
#        --y rsbsim.mispredicted_per_op --y counters.ret-mispredicts.per_op`
if (!exists("plotdir")) plotdir = 'plots'
if (!exists("model")) model = 'simulated RSB'
W = 1300
H = 600
load plotdir.'/common.gp'
set xlabel "depth"
set ylabel "mispredicted returns per switch"
set key top left inside
set multiplot layout 1,2 title "pingpong: mispredicted returns per switch (solid: ".model.", dashed: hardware counter)"
do for [f in distinct." ".same] {
    set title (f eq distinct ? "sites=distinct" : "sites=same")
    plot for [i=0:*] f index i using 1:2 with linespoints linetype i+1 title columnheader(1), \
         for [i=0:*] f index i using 1:3 with lines linetype i+1 dashtype 2 notitle
}
unset multiplot
