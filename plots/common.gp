# Shared by the plots/*.gp scripts (loaded by them; not run alone): the terminal from the output's
# extension (.svg: SVG, anything else: PNG), size W x H, twelve distinguishable line colours so
# that up to twelve series never share one, a grid and the key outside.
if (!exists("out")) out = 'plot.png'
if (!exists("W")) W = 900
if (!exists("H")) H = 600
if (strlen(out) > 4 && out[strlen(out)-3:] eq 'svg') {
    set terminal svg size W,H noenhanced dynamic background rgb 'white'
} else {
    set terminal pngcairo size W,H noenhanced
}
set output out
array C[12] = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", \
               "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#000000", "#393b79"]
do for [k=1:12] { set linetype k linecolor rgb C[k] linewidth 1.5 pointtype k }
set grid
set key outside right
