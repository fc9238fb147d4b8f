# Difference of r_comm between two configurations (second minus first); mpich mpich synthetic 1.0 basic ibcast vs mpich 1.0 progress ibcast
# Written by nbc-analyze; edit and re-run from this folder:
#   gnuplot diff_comm.gp
# It renders diff_comm.png, diff_comm.svg and diff_comm.pdf, 3.50 x 3.52 in, text 8 pt.
set encoding utf8
do for [fmt in "png svg pdf"] {
    if (fmt eq "png") { set terminal pngcairo size 700,703 font "DejaVu Sans,8" fontscale 2.0833 linewidth 2.7778 noenhanced }
    if (fmt eq "svg") { set terminal svg size 252,253 font "DejaVu Sans,8" noenhanced }
    if (fmt eq "pdf") { set terminal pdfcairo size 3.50in,3.52in font "DejaVu Sans,8" fontscale 0.7500 noenhanced }
    set output "diff_comm.".fmt
    set multiplot layout 1,1 title "r_comm: progress - basic"
    set title ""
    set size ratio -1
    set xrange [-0.500000:3.500000]
    set yrange [-0.500000:3.500000]
    set xlabel 'communication: ms, bytes'
    set ylabel 'computation: ms (GEMM order)'
    set tics out nomirror scale 0.5
    set key off
    set xtics ("1\n4.1k" 0.000000, "2\n?\n8.2k" 1.000000, "4\n16k" 2.000000, "8\n33k" 3.000000)
    set ytics ("1\n(60)" 0.000000, "2\n(76)" 1.000000, "4\n(95)" 2.000000, "8\n(120)" 3.000000)
    set xlabel offset 0,-1.6
    diagonal(x) = (x >= -0.500000 && x <= 3.500000) ? x : NaN
    set samples 400
    set cbrange [-1:1]
    set palette defined (-1 '#364b9a', -0.8 '#4a7bb7', -0.6 '#6ea6cd', -0.4 '#98cae1', -0.2 '#c2e4ef', 0 '#eaeccc', 0.2 '#feda8b', 0.4 '#fdb366', 0.6 '#f67e4b', 0.8 '#dd3d2d', 1 '#a50026')
    set cblabel "difference of r_comm"
    set colorbox
    unset logscale cb
    set cbtics autofreq
    plot "diff_comm.dat" using 1:2:3:4:5:6:($8==1?$7:NaN) with boxxyerror fs solid 1.0 border lc rgb 'white' lc palette notitle, \
        "diff_comm.dat" using ($8==0?$1:NaN):2:3:4:5:6 with boxxyerror fs solid 1.0 border lc rgb 'white' lc rgb '#d9d9d9' notitle, \
        "diff_comm.dat" using ($8==0?$1:NaN):2:3:4:5:6 with boxxyerror fs transparent pattern 4 noborder lc rgb '#7f7f7f' notitle, \
        "diff_comm.dat" using ($11==1?$1:NaN):2:($3+0.12*($4-$3)):($4-0.12*($4-$3)):($5+0.12*($6-$5)):($6-0.12*($6-$5)) with boxxyerror fs empty lc rgb 'white' lw 3 notitle, \
        "diff_comm.dat" using ($11==1?$1:NaN):2:($3+0.12*($4-$3)):($4-0.12*($4-$3)):($5+0.12*($6-$5)):($6-0.12*($6-$5)) with boxxyerror fs empty lc rgb 'black' dt (3,2) lw 1.5 notitle, \
        diagonal(x) with lines dt (8,8) lw 1.5 lc rgb '#99000000' notitle, \
        "diff_comm.dat" using 1:2:($8==1?$9:""):10 with labels font ',7' tc rgb variable notitle
    unset multiplot
    set output
}
