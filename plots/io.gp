# io: echoed messages per second (10^9 / median ns per message) against connections, per
# implementation; of one connection count only (data_one, 'conns=4'), a bar per implementation.
# usage: gnuplot -e "data='io.dat'; out='io.png'; subtitle='(transport=unix)'" plots/io.gp
# data: `corobench export R.json --workload io --x conns --where transport=unix --where variant=plain`
if (!exists("data")) data = 'io.dat'
if (!exists("subtitle")) subtitle = ''
if (!exists("plotdir")) plotdir = 'plots'
if (!exists("data_lt")) data_lt = ''
if (!exists("data_one")) data_one = ''
XLOG = 1
load plotdir.'/common.gp'
set title "io: messages per second vs. connections ".subtitle
set xlabel "connections"
set ylabel "messages per second"
set logscale x 2
stats data using (1e9 / $2) nooutput
eval LOGY
if (strlen(data_one)) {
    eval BARS
    set xlabel "at ".data_one.", the one connection count measured"
    plot for [i=0:*] data index i using (i):(1e9 / $2):xtic(columnhead(1)) with boxes \
        linetype LT(data_lt, i) notitle
} else {
    plot for [i=0:*] data index i using 1:(1e9 / $2) with linespoints linetype LT(data_lt, i) \
        title columnheader(1)
}
