# Overhead over the baseline without coroutines: each implementation's median ns per op divided
# by the baseline's at the same point, one panel per workload given.
# usage: gnuplot -e "file1='p.dat'; file2='r.dat'; titles='pingpong:depth recursive:height'; base='direct'; out='overhead.png'" plots/overhead.gp
# data: `corobench export R.json --workload W --x X --where variant=plain --relative-to direct
#        --y ns_per_op.median`; lt1, lt2...: the linetypes of each file's series (common.gp).
if (!exists("plotdir")) plotdir = 'plots'
if (!exists("base")) base = 'direct'
W = 1500
H = 600
load plotdir.'/common.gp'
set ylabel "time / ".base."'s time (same point)"
set multiplot layout 1,words(titles) title "overhead over ".base
do for [k=1:words(titles)] {
    t = word(titles, k)
    l = (exists(sprintf("lt%d", k)) ? value(sprintf("lt%d", k)) : '')
    set title t[1:strstrt(t, ':')-1]
    set xlabel t[strstrt(t, ':')+1:]
    stats value(sprintf("file%d", k)) using 2 nooutput
    eval LOGY
    plot for [i=0:*] value(sprintf("file%d", k)) index i using 1:2 with linespoints linetype LT(l, i) \
        title columnheader(1)
}
unset multiplot
