# recursive: median ns per node (left) and bytes per tree level at the deepest point (right:
# stack bytes used + runtime heap, divided by the height) against the tree's height.
# usage: gnuplot -e "data='r.dat'; out='recursive.png'" plots/recursive.gp
# data: `corobench export R.json --workload recursive --x height --where variant=plain
#        --y ns_per_op.median --y memory.stack_used_bytes_per_coro --y memory.heap_bytes_per_coro`
if (!exists("data")) data = 'recursive.dat'
if (!exists("plotdir")) plotdir = 'plots'
W = 1300
H = 600
load plotdir.'/common.gp'
set xlabel "height (levels of the tree)"
set key top left inside
set multiplot layout 1,2 title "recursive: a generator walking a complete binary tree"
set title "time"
set ylabel "ns per node (median)"
set logscale y
plot for [i=0:*] data index i using 1:2 with linespoints title columnheader(1)
set title "memory at the deepest point"
set ylabel "bytes per level ((stack used + heap) / height)"
unset logscale y
plot for [i=0:*] data index i using 1:(($3 + $4) / $1) with linespoints title columnheader(1)
unset multiplot
