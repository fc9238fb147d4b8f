# Concurrency ratios r_comm (eq. 4) and r_comp_slowdown (eq. 3), section 5.2, on a log scale centred at 1 (unchanged); mpich synthetic 1.0, basic
# Written by nbc-analyze; edit and re-run from this folder:
#   gnuplot concurrency.gp
# It renders concurrency.png, concurrency.svg and concurrency.pdf, 3.50 x 3.38 in, text 8 pt.
set encoding utf8
do for [fmt in "png svg pdf"] {
    if (fmt eq "png") { set terminal pngcairo size 700,676 font "DejaVu Sans,8" fontscale 2.0833 linewidth 2.7778 noenhanced }
    if (fmt eq "svg") { set terminal svg size 252,243 font "DejaVu Sans,8" noenhanced }
    if (fmt eq "pdf") { set terminal pdfcairo size 3.50in,3.38in font "DejaVu Sans,8" fontscale 0.7500 noenhanced }
    set output "concurrency.".fmt
    set multiplot layout 1,1 title "ibcast concurrency, mpich synthetic 1.0, basic"
    set title "r_comm"
    set size ratio -1
    set xrange [-0.500000:5.500000]
    set yrange [-0.500000:5.500000]
    set xlabel 'communication: ms, bytes'
    set ylabel 'computation: ms (GEMM order)'
    set tics out nomirror scale 0.5
    set key off
    set xtics ("1\n4.1k" 0.000000, "2" 1.000000, "4\n16k" 2.000000, "8\n33k" 3.000000, "16\n66k" 4.000000, "32\n131k" 5.000000)
    set ytics ("1\n(60)" 0.000000, "2\n(76)" 1.000000, "4\n(95)" 2.000000, "8\n(120)" 3.000000, "16\n(151)" 4.000000, "32\n(190)" 5.000000)
    set xlabel offset 0,-0.6
    diagonal(x) = (x >= -0.500000 && x <= 5.500000) ? x : NaN
    set samples 400
    set cbrange [0.666667:1.5]
    set palette defined (-1 '#364b9a', -0.8 '#4a7bb7', -0.6 '#6ea6cd', -0.4 '#98cae1', -0.2 '#c2e4ef', 0 '#eaeccc', 0.2 '#feda8b', 0.4 '#fdb366', 0.6 '#f67e4b', 0.8 '#dd3d2d', 1 '#a50026')
    set cblabel ""
    set colorbox
    set logscale cb
    set cbtics ("0.67" 0.666667, "0.82" 0.816497, "1" 1, "1.2" 1.22474, "1.5" 1.5)
    plot "r_comm.dat" using 1:2:3:4:5:6:($8==1?$7:NaN) with boxxyerror fs solid 1.0 border lc rgb 'white' lc palette notitle, \
        "r_comm.dat" using ($8==0?$1:NaN):2:3:4:5:6 with boxxyerror fs solid 1.0 border lc rgb 'white' lc rgb '#d9d9d9' notitle, \
        "r_comm.dat" using ($8==0?$1:NaN):2:3:4:5:6 with boxxyerror fs transparent pattern 4 noborder lc rgb '#7f7f7f' notitle, \
        "r_comm.dat" using ($11==1?$1:NaN):2:($3+0.12*($4-$3)):($4-0.12*($4-$3)):($5+0.12*($6-$5)):($6-0.12*($6-$5)) with boxxyerror fs empty lc rgb 'white' lw 3 notitle, \
        "r_comm.dat" using ($11==1?$1:NaN):2:($3+0.12*($4-$3)):($4-0.12*($4-$3)):($5+0.12*($6-$5)):($6-0.12*($6-$5)) with boxxyerror fs empty lc rgb 'black' dt (3,2) lw 1.5 notitle, \
        diagonal(x) with lines dt (8,8) lw 1.5 lc rgb '#99000000' notitle, \
        "r_comm.dat" using 1:2:($8==1?$9:""):10 with labels font ',7' tc rgb variable notitle
    unset multiplot
    set output
}
