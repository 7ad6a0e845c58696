# pingpong: median ns per switch against call depth at the switch, one line per implementation.
# usage: gnuplot -e "data='pingpong.dat'; out='pingpong-depth.png'; subtitle='(sites=distinct)'" plots/pingpong-depth.gp
# data: `corobench export RESULTS.json --workload pingpong --x depth --where sites=distinct`.
if (!exists("data")) data = 'pingpong.dat'
if (!exists("subtitle")) subtitle = ''
if (!exists("plotdir")) plotdir = 'plots'
if (!exists("data_lt")) data_lt = ''
load plotdir.'/common.gp'
set title "pingpong: median ns per switch vs. call depth at the switch ".subtitle
set xlabel "depth (non-inlined call levels between the loop and the switch)"
set ylabel "ns per switch (median; bars: min..max)"
stats data using 2 nooutput
eval LOGY
plot for [i=0:*] data index i using 1:2:4:5 with yerrorlines linetype LT(data_lt, i) \
    title columnheader(1)
