# pingpong: the plain build (solid) against the jmpret build, every ret a pop and jump (dashed,
# the same colour for the same implementation), median ns per switch vs depth; only the
# implementations that have both builds (the report drops the others from the data).
# usage: gnuplot -e "plain='p.dat'; jmpret='j.dat'; out='pingpong-jmpret.png'; subtitle='(sites=distinct)'" plots/pingpong-jmpret.gp
# data: `corobench export R.json --workload pingpong --x depth --where sites=distinct
#        --where variant=plain` (and variant=jmpret).
if (!exists("subtitle")) subtitle = ''
if (!exists("plotdir")) plotdir = 'plots'
if (!exists("plain_lt")) plain_lt = ''
if (!exists("jmpret_lt")) jmpret_lt = ''
load plotdir.'/common.gp'
set title "pingpong: plain build (solid) vs. jmpret build (dashed) ".subtitle
set xlabel "depth"
set ylabel "ns per switch (median)"
stats plain using 2 nooutput
eval LOGY
plot for [i=0:*] plain index i using 1:2 with linespoints linetype LT(plain_lt, i) \
         title columnheader(1), \
     for [i=0:*] jmpret index i using 1:2 with linespoints linetype LT(jmpret_lt, i) dashtype 2 \
         notitle
