# ns per switch against call depth at the switch point, one line per implementation.
# usage: gnuplot -e "data='pingpong.dat'; out='pingpong-depth.png'; subtitle='sites=distinct'" plots/pingpong-depth.gp
# The data comes from `corobench export RESULTS.json --workload pingpong --x depth`.
if (!exists("data")) data = 'pingpong.dat'
if (!exists("out")) out = 'pingpong-depth.png'
if (!exists("subtitle")) subtitle = ''
set terminal pngcairo size 900,600 noenhanced
set output out
set title "pingpong: median ns per switch vs. call depth at the switch ".subtitle
set xlabel "depth (non-inlined call levels between the loop and the switch)"
set ylabel "ns per switch (median; bars: min..max)"
set logscale y
set key outside right
set grid
plot for [i=0:*] data index i using 1:2:4:5 with yerrorlines title columnheader(1)
