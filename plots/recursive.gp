# recursive: median ns per node (left) and bytes per tree level at the deepest point (right:
# stack bytes used + runtime heap, divided by the height) against the tree's height; each y axis
# logarithmic where its values span more than 20x (lua's 3,800 bytes a level beside C's 16-72).
# Of one height only (data_one, 'height=8'), a bar per implementation in each panel.
# usage: gnuplot -e "data='r.dat'; out='recursive.png'" plots/recursive.gp
# data: `corobench export R.json --workload recursive --x height --where variant=plain
#        --y ns_per_op.median --y memory.stack_used_bytes_per_coro --y memory.heap_bytes_per_coro`
if (!exists("data")) data = 'recursive.dat'
if (!exists("plotdir")) plotdir = 'plots'
if (!exists("data_lt")) data_lt = ''
if (!exists("data_one")) data_one = ''
NX = 2
load plotdir.'/common.gp'
set xlabel "height (levels of the tree)"
if (strlen(data_one)) { set xlabel "at ".data_one.", the one height measured" }
set multiplot layout 1,2 title "recursive: a generator walking a complete binary tree"
set title "time"
set ylabel "ns per node (median)"
stats data using 2 nooutput
eval LOGY
if (strlen(data_one)) {
    eval BARS
    plot for [i=0:*] data index i using (i):2:xtic(columnhead(1)) with boxes \
        linetype LT(data_lt, i) notitle
} else {
    plot for [i=0:*] data index i using 1:2 with linespoints linetype LT(data_lt, i) \
        title columnheader(1)
}
set title "memory at the deepest point"
set ylabel "bytes per level ((stack used + heap) / height)"
stats data using (($3 + $4) / $1) nooutput
eval LOGY
if (strlen(data_one)) {
    eval BARS
    plot for [i=0:*] data index i using (i):(($3 + $4) / $1):xtic(columnhead(1)) with boxes \
        linetype LT(data_lt, i) notitle
} else {
    plot for [i=0:*] data index i using 1:(($3 + $4) / $1) with linespoints \
        linetype LT(data_lt, i) title columnheader(1)
}
unset multiplot
