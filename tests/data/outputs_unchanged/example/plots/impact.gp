# MPI impact on computation (paper eq. 2, fig. 9); mpich synthetic 1.0, basic
# Written by nbc-analyze; edit and re-run from this folder:
#   gnuplot impact.gp
# It renders impact.png, impact.svg and impact.pdf, 3.50 x 2.50 in, text 8 pt.
set encoding utf8
do for [fmt in "png svg pdf"] {
    if (fmt eq "png") { set terminal pngcairo size 700,500 font "DejaVu Sans,8" fontscale 2.0833 linewidth 2.7778 noenhanced }
    if (fmt eq "svg") { set terminal svg size 252,180 font "DejaVu Sans,8" noenhanced }
    if (fmt eq "pdf") { set terminal pdfcairo size 3.50in,2.50in font "DejaVu Sans,8" fontscale 0.7500 noenhanced }
    set output "impact.".fmt
    set title "r_MPI_impact, mpich synthetic 1.0, basic"
    set xrange [-0.6:5.6]
    set logscale y
    set yrange [0.910768:1.09797]
    set xlabel 'computation time, target (ms)'
    set ylabel 'r_MPI_impact (1: none)'
    set grid ytics
    set tics out nomirror
    set key on below horizontal font ',7'
    set xtics ("1" 0, "2" 1, "4" 2, "8" 3, "16" 4, "32" 5)
    set ytics ("1" 1, "1.05" 1.05, "1.02" 1.02, "0.95" 0.95, "0.98" 0.98)
    plot 1 with lines lw 1.5 dt 2 lc rgb '#303030' notitle, \
        'impact.dat' index 0 using 1:2:4:5 with yerrorbars pt 7 ps 0.8 lw 1.5 lc rgb '#4477aa' title "host node0", \
        'impact.dat' index 1 using 1:2:4:5 with yerrorbars pt 5 ps 0.8 lw 1.5 lc rgb '#ee6677' title "host node1"
    set output
}
