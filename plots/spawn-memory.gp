# spawn: bytes per coroutine against the number alive, one panel per measure that the results
# have (touched stack, runtime heap, RSS, kernel), one line per implementation (identical lines
# drawn once, labelled with every name); x logarithmic, y where it spans more than 20x. A panel
# whose series have one n (oneK, 'n=1000') is a bar per implementation.
# usage: gnuplot -e "file1='t.dat'; file2='h.dat'; titles='touched heap'; out='spawn-memory.png'" plots/spawn-memory.gp
# data: one file per measure, `corobench export R.json --workload spawn --x n --where depth=0
#        --where layout=aligned --where variant=plain --y memory.M_bytes_per_coro` for M in
#        touched, heap, rss, kernel (titles names them); lt1, lt2...: each file's linetypes.
if (!exists("plotdir")) plotdir = 'plots'
NAME(t) = (t eq "touched" ? "touched stack bytes" : t eq "heap" ? "runtime heap bytes" : \
           t eq "rss" ? "RSS bytes" : t eq "kernel" ? "kernel bytes" : t)
NX = 2
NY = 2
XLOG = 1
load plotdir.'/common.gp'
set multiplot layout 2,2 title "spawn: bytes per coroutine vs. coroutines alive"
do for [k=1:words(titles)] {
    t = word(titles, k)
    l = (exists(sprintf("lt%d", k)) ? value(sprintf("lt%d", k)) : '')
    one = (exists(sprintf("one%d", k)) ? value(sprintf("one%d", k)) : '')
    set title NAME(t)
    set ylabel NAME(t)." per coroutine"
    stats value(sprintf("file%d", k)) using 2 nooutput
    eval LOGY
    if (strlen(one)) {
        eval BARS
        set xlabel "at ".one.", the one number of coroutines measured"
        plot for [i=0:*] value(sprintf("file%d", k)) index i using (i):2:xtic(columnhead(1)) \
            with boxes linetype LT(l, i) notitle
    } else {
        eval LINES
        set logscale x
        set xlabel "coroutines alive (n)"
        plot for [i=0:*] value(sprintf("file%d", k)) index i using 1:2 with linespoints \
            linetype LT(l, i) title columnheader(1)
    }
}
unset multiplot
