# Overlap frontier (r_overhead, paper eq. 1)
# Written by nbc-analyze; edit and re-run from this folder:
#   gnuplot frontier.gp
# It renders frontier.png, frontier.svg and frontier.pdf, 3.50 x 3.02 in, text 8 pt.
set encoding utf8
do for [fmt in "png svg pdf"] {
    if (fmt eq "png") { set terminal pngcairo size 700,605 font "DejaVu Sans,8" fontscale 2.0833 linewidth 2.7778 noenhanced }
    if (fmt eq "svg") { set terminal svg size 252,218 font "DejaVu Sans,8" noenhanced }
    if (fmt eq "pdf") { set terminal pdfcairo size 3.50in,3.02in font "DejaVu Sans,8" fontscale 0.7500 noenhanced }
    set output "frontier.".fmt
    set multiplot layout 1,1 title "ibcast overlap frontier, mpich synthetic 1.0, basic"
    set logscale xy 2
    set xrange [0.707107:45.2548]
    set yrange [0.5:64]
    set xlabel 'communication time, target (ms)'
    set ylabel 'hidden computation (ms)'
    set grid
    set tics out nomirror
    set key off below horizontal font ',7'
    set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb '#808080'
    set arrow 2 from graph 0, first 32 to graph 1, first 32 nohead dt 2 lc rgb '#808080'
    set xtics ("1" 1, "2" 2, "4" 4, "8" 8, "16" 16, "32" 32)
    set ytics ("1" 1, "2" 2, "4" 4, "8" 8, "16" 16, "32" 32)
    plot 'frontier.dat' index 0 using 1:($5<=1?$2:NaN):3:4 with yerrorbars pt 7 ps 0.8 lw 1.5 lc rgb '#4477aa' title "mpich synthetic 1.0, basic", \
        '' index 0 using 1:($5==1?$2*1.15:NaN) with points pt 8 ps 0.6 lc rgb '#4477aa' notitle, \
        '' index 0 using 1:($5==2?$2:NaN) with points pt 10 ps 0.8 lc rgb '#4477aa' notitle, \
        '' index 0 using 1:($5==3?$2:NaN):("?") with labels tc rgb '#4477aa' font ',8' notitle
    unset multiplot
    set output
}
