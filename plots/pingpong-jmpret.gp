# pingpong: the plain build (solid) against the jmpret build, every ret a pop and jump (dashed,
# the same colour for the same implementation), median ns per switch vs depth.
# usage: gnuplot -e "plain='p.dat'; jmpret='j.dat'; out='pingpong-jmpret.png'; subtitle='(sites=distinct)'" plots/pingpong-jmpret.gp
# data: `corobench export R.json --workload pingpong --x depth --where sites=distinct
#        --where variant=plain` (and variant=jmpret): the implementations in the same order.
if (!exists("subtitle")) subtitle = ''
if (!exists("plotdir")) plotdir = 'plots'
load plotdir.'/common.gp'
set title "pingpong: plain build (solid) vs. jmpret build (dashed) ".subtitle
set xlabel "depth"
set ylabel "ns per switch (median)"
set logscale y
plot for [i=0:*] plain index i using 1:2 with linespoints linetype i+1 title columnheader(1), \
     for [i=0:*] jmpret index i using 1:2 with linespoints linetype i+1 dashtype 2 \
         title columnheader(1)
