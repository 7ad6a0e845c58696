# pingpong: median ns per switch against call depth at the switch, one line per implementation;
# of one depth only (data_one, 'depth=0'), a bar per implementation.
# usage: gnuplot -e "data='pingpong.dat'; out='pingpong-depth.png'; subtitle='(sites=distinct)'" plots/pingpong-depth.gp
# data: `corobench export RESULTS.json --workload pingpong --x depth --where sites=distinct`.
if (!exists("data")) data = 'pingpong.dat'
if (!exists("subtitle")) subtitle = ''
if (!exists("plotdir")) plotdir = 'plots'
if (!exists("data_lt")) data_lt = ''
if (!exists("data_one")) data_one = ''
load plotdir.'/common.gp'
set title "pingpong: median ns per switch vs. call depth at the switch ".subtitle
set xlabel "depth (non-inlined call levels between the loop and the switch)"
set ylabel "ns per switch (median; bars: min..max)"
stats data using 2 nooutput
eval LOGY
if (strlen(data_one)) {
    eval BARS
    set xlabel "at ".data_one.", the one depth measured (bars: min..max)"
    plot for [i=0:*] data index i using (i):2:xtic(columnhead(1)) with boxes \
            linetype LT(data_lt, i) notitle, \
         for [i=0:*] data index i using (i):2:4:5 with yerrorbars linecolor rgb "#404040" \
            pointtype 0 notitle
} else {
    plot for [i=0:*] data index i using 1:2:4:5 with yerrorlines linetype LT(data_lt, i) \
        title columnheader(1)
}
