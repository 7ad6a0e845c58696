# ns per switch against call depth at the switch point, one line per implementation.
# usage: gnuplot -e "data='pingpong.dat'; out='pingpong-depth.png'; subtitle='sites=distinct'" plots/pingpong-depth.gp
# The data comes from `corobench export RESULTS.json --workload pingpong --x depth`.
if (!exists("data")) data = 'pingpong.dat'
if (!exists("out")) out = 'pingpong-depth.png'
if (!exists("subtitle")) subtitle = ''
set terminal pngcairo size 900,600 noenhanced
# Twelve distinguishable colours, so up to twelve series (impl x variant) never share one.
array C[12] = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", \
               "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#000000", "#393b79"]
do for [k=1:12] { set linetype k linecolor rgb C[k] linewidth 1.5 pointtype k }
set output out
set title "pingpong: median ns per switch vs. call depth at the switch ".subtitle
set xlabel "depth (non-inlined call levels between the loop and the switch)"
set ylabel "ns per switch (median; bars: min..max)"
set logscale y
set key outside right
set grid
plot for [i=0:*] data index i using 1:2:4:5 with yerrorlines title columnheader(1)
