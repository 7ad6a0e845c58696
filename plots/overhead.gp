# Overhead over the baseline without coroutines: each implementation's median ns per op divided
# by the baseline's at the same point, one panel per workload given; a panel whose series have
# one x point (oneK, 'height=8') is a bar per implementation.
# usage: gnuplot -e "file1='p.dat'; file2='r.dat'; titles='pingpong:depth recursive:height'; base='direct'; out='overhead.png'" plots/overhead.gp
# data: `corobench export R.json --workload W --x X --where variant=plain --relative-to direct
#        --y ns_per_op.median`; lt1, lt2...: the linetypes of each file's series (common.gp).
if (!exists("plotdir")) plotdir = 'plots'
if (!exists("base")) base = 'direct'
NX = words(titles)
load plotdir.'/common.gp'
set ylabel "time / ".base."'s time (same point)"
set multiplot layout 1,words(titles) title "overhead over ".base
do for [k=1:words(titles)] {
    t = word(titles, k)
    l = (exists(sprintf("lt%d", k)) ? value(sprintf("lt%d", k)) : '')
    one = (exists(sprintf("one%d", k)) ? value(sprintf("one%d", k)) : '')
    set title t[1:strstrt(t, ':')-1]
    stats value(sprintf("file%d", k)) using 2 nooutput
    eval LOGY
    if (strlen(one)) {
        eval BARS
        set xlabel "at ".one.", the one point measured"
        plot for [i=0:*] value(sprintf("file%d", k)) index i using (i):2:xtic(columnhead(1)) \
            with boxes linetype LT(l, i) notitle
    } else {
        eval LINES
        set xlabel t[strstrt(t, ':')+1:]
        s = sprintf("xspan%d", k)
        if (exists(s) && XSTEP(value(s))) { set xtics 1 } else { set xtics autofreq }
        plot for [i=0:*] value(sprintf("file%d", k)) index i using 1:2 with linespoints \
            linetype LT(l, i) title columnheader(1)
    }
}
unset multiplot
