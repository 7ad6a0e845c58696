# Return-stack calibration: the measured plain time per switch (points) and the plain time the
# calibrated model predicts from each twin (docs/rsb.md, "Two twins"): jmpret + cost x simulated
# mispredictions (dashed), and plain at sites=same + cost x the difference in simulated
# mispredictions (solid, sites=distinct only), per depth. Each implementation in its colour and
# point type from the scheme every plot uses (harness/common/style.c), which the data carries in
# columns 5 and 6 of each block: filled points at sites=distinct, open ones at sites=same.
# usage: gnuplot -e "data='rsb-calibration.dat'; out='rsb-calibration.png'; subtitle='circular 32'" plots/rsb-calibration.gp
# The data comes from `corobench calibrate --data FILE` (docs/rsb.md, "Calibration").
if (!exists("data")) data = 'rsb-calibration.dat'
if (!exists("out")) out = 'rsb-calibration.png'
if (!exists("subtitle")) subtitle = ''
set terminal pngcairo size 900,600 noenhanced
do for [k=1:4] {
    stats data index k-1 using 5:6 nooutput
    set linetype k linecolor rgb int(STATS_min_x) linewidth 1.5 pointtype int(STATS_min_y) \
        pointsize 1.2
}
set output out
# The CPU key on a line of its own: after the sentence it ran past the 900-pixel width.
set title "return-stack calibration: measured plain time vs. the model's prediction".(strlen(subtitle) ? "\n".subtitle : "")
set xlabel "depth (non-inlined call levels between the loop and the switch)"
set ylabel "ns per switch: plain (points), predicted (lines)"
set key outside right
set grid
plot for [i=0:3] data index i using 1:2 with points linetype i+1 title columnheader(1), \
     for [i=0:3] data index i using 1:3 with lines linetype i+1 dashtype 2 notitle, \
     for [i=0:3] data index i using 1:4 with lines linetype i+1 notitle
