# Return-stack calibration: the time mispredicted returns cost (plain - jmpret, points) and what
# the fitted model says they cost (cost x simulated mispredictions + intercept, lines), per depth,
# one colour per implementation and sites.
# usage: gnuplot -e "data='rsb-calibration.dat'; out='rsb-calibration.png'; subtitle='circular 32'" plots/rsb-calibration.gp
# The data comes from `corobench calibrate --data FILE` (docs/rsb.md, "Calibration").
if (!exists("data")) data = 'rsb-calibration.dat'
if (!exists("out")) out = 'rsb-calibration.png'
if (!exists("subtitle")) subtitle = ''
set terminal pngcairo size 900,600 noenhanced
array C[4] = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
do for [k=1:4] { set linetype k linecolor rgb C[k] linewidth 1.5 pointtype k }
set output out
set title "return-stack calibration: measured vs. fitted cost of mispredicted returns ".subtitle
set xlabel "depth (non-inlined call levels between the loop and the switch)"
set ylabel "ns per switch: plain - jmpret (points), fit (lines)"
set key outside right
set grid
plot for [i=0:3] data index i using 1:2 with points linetype i+1 title columnheader(1), \
     for [i=0:3] data index i using 1:3 with lines linetype i+1 notitle
