# spawn: bytes per coroutine against the number alive, log-log, one panel per measure that the
# results have (touched stack, runtime heap, RSS, kernel), one line per implementation.
# usage: gnuplot -e "data='m.dat'; panels='2 3 4'; out='spawn-memory.png'" plots/spawn-memory.gp
# data: `corobench export R.json --workload spawn --x n --where depth=0 --where variant=plain
#        --y memory.touched_bytes_per_coro --y memory.heap_bytes_per_coro
#        --y memory.rss_bytes_per_coro --y memory.kernel_bytes_per_coro`; panels lists the data
# columns (2..5) that have a positive value somewhere (log scales cannot show the others).
if (!exists("plotdir")) plotdir = 'plots'
if (!exists("panels")) panels = '2 3 4 5'
array NAME[5] = ["", "touched stack bytes", "runtime heap bytes", "RSS bytes", "kernel bytes"]
W = 1300
H = 900
load plotdir.'/common.gp'
set logscale xy
set xlabel "coroutines alive (n)"
set key bottom left inside
set multiplot layout 2,2 title "spawn: bytes per coroutine vs. coroutines alive (log-log)"
do for [col in panels] {
    c = int(col)
    set title NAME[c]
    set ylabel NAME[c]." per coroutine"
    plot for [i=0:*] data index i using 1:c with linespoints title columnheader(1)
}
unset multiplot
