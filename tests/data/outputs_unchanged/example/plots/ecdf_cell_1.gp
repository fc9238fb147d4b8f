# Distribution over blocks of one cell (nbc-analyze --ecdf); mpich synthetic 1.0, basic
# Written by nbc-analyze; edit and re-run from this folder:
#   gnuplot ecdf_cell_1.gp
# It renders ecdf_cell_1.png, ecdf_cell_1.svg and ecdf_cell_1.pdf, 3.50 x 5.00 in, text 8 pt.
set encoding utf8
do for [fmt in "png svg pdf"] {
    if (fmt eq "png") { set terminal pngcairo size 700,1000 font "DejaVu Sans,8" fontscale 2.0833 linewidth 2.7778 noenhanced }
    if (fmt eq "svg") { set terminal svg size 252,360 font "DejaVu Sans,8" noenhanced }
    if (fmt eq "pdf") { set terminal pdfcairo size 3.50in,5.00in font "DejaVu Sans,8" fontscale 0.7500 noenhanced }
    set output "ecdf_cell_1.".fmt
    set multiplot layout 2,1 title "ibcast cell 1, mpich synthetic 1.0, basic"
    set key bottom right
    set grid
    set yrange [0:1]
    set ylabel 'share of blocks'
    set xlabel 'r_overhead of one block (eq. 1)'
    set xtics 0.005
    set title 'r_overhead per block'
    set arrow from 1.00656077, graph 0 to 1.00656077, graph 1 nohead lw 2 lc rgb '#d73027'
    set arrow from 0.996422845, graph 0 to 0.996422845, graph 1 nohead lw 1.5 dt 2 lc rgb '#d73027'
    set arrow from 1.0102349, graph 0 to 1.0102349, graph 1 nohead lw 1.5 dt 2 lc rgb '#d73027'
    set arrow from 1.00241531, graph 0 to 1.00241531, graph 1 nohead lw 1.5 dt 3 lc rgb '#4575b4'
    plot 'ecdf_cell_1.dat' index 0 using 1:2 with steps lw 2 lc rgb '#303030' title 'blocks'
    unset arrow
    set title 'span of each block'
    set xlabel 'duration (ms)'
    set logscale x 2
    set xtics autofreq
    plot 'ecdf_cell_1.dat' index 1 using 1:2 with steps lw 2 lc rgb '#4575b4' title 'comm_ref', 'ecdf_cell_1.dat' index 2 using 1:2 with steps lw 2 lc rgb '#1a9850' title 'comp_ref', 'ecdf_cell_1.dat' index 3 using 1:2 with steps lw 2 lc rgb '#d73027' title 'overlap'
    unset logscale x
    unset multiplot
    set output
}
