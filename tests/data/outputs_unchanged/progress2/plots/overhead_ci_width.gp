# Overhead ratio r_overhead (paper eq. 1, section 5.2: 0 overlap, 1 serialized) and the width of its interval; mpich synthetic 1.0, progress
# Written by nbc-analyze; edit and re-run from this folder:
#   gnuplot overhead_ci_width.gp
# It renders overhead_ci_width.png, overhead_ci_width.svg and overhead_ci_width.pdf, 3.50 x 3.38 in, text 8 pt.
set encoding utf8
do for [fmt in "png svg pdf"] {
    if (fmt eq "png") { set terminal pngcairo size 700,676 font "DejaVu Sans,8" fontscale 2.0833 linewidth 2.7778 noenhanced }
    if (fmt eq "svg") { set terminal svg size 252,243 font "DejaVu Sans,8" noenhanced }
    if (fmt eq "pdf") { set terminal pdfcairo size 3.50in,3.38in font "DejaVu Sans,8" fontscale 0.7500 noenhanced }
    set output "overhead_ci_width.".fmt
    set multiplot layout 1,1 title "ibcast r_overhead, mpich synthetic 1.0, progress"
    set title "interval width"
    set size ratio -1
    set xrange [-0.500000:3.500000]
    set yrange [-0.500000:3.500000]
    set xlabel 'communication: ms, bytes'
    set ylabel 'computation: ms (GEMM order)'
    set tics out nomirror scale 0.5
    set key off
    set xtics ("1\n4.1k" 0.000000, "2\n8.2k" 1.000000, "4\n16k" 2.000000, "8\n33k" 3.000000)
    set ytics ("1\n(60)" 0.000000, "2\n(76)" 1.000000, "4\n(95)" 2.000000, "8\n(120)" 3.000000)
    set xlabel offset 0,-0.6
    diagonal(x) = (x >= -0.500000 && x <= 3.500000) ? x : NaN
    set samples 400
    set cbrange [0:1]
    set palette defined (0 '#00204d', 1 '#00336f', 2 '#39486b', 3 '#575c6d', 4 '#707173', 5 '#8a8779', 6 '#a69d75', 7 '#c4b56c', 8 '#e4cf5b', 9 '#ffea46')
    set cblabel ""
    set colorbox
    unset logscale cb
    set cbtics ("0" 0, "0.25" 0.25, "0.5" 0.5, "0.75" 0.75, "≥1" 1)
    plot "overhead_ci_width.dat" using 1:2:3:4:5:6:($8==1?$7:NaN) with boxxyerror fs solid 1.0 border lc rgb 'white' lc palette notitle, \
        "overhead_ci_width.dat" using ($8==0?$1:NaN):2:3:4:5:6 with boxxyerror fs solid 1.0 border lc rgb 'white' lc rgb '#d9d9d9' notitle, \
        "overhead_ci_width.dat" using ($8==0?$1:NaN):2:3:4:5:6 with boxxyerror fs transparent pattern 4 noborder lc rgb '#7f7f7f' notitle, \
        "overhead_ci_width.dat" using ($11==1?$1:NaN):2:($3+0.12*($4-$3)):($4-0.12*($4-$3)):($5+0.12*($6-$5)):($6-0.12*($6-$5)) with boxxyerror fs empty lc rgb 'white' lw 3 notitle, \
        "overhead_ci_width.dat" using ($11==1?$1:NaN):2:($3+0.12*($4-$3)):($4-0.12*($4-$3)):($5+0.12*($6-$5)):($6-0.12*($6-$5)) with boxxyerror fs empty lc rgb 'black' dt (3,2) lw 1.5 notitle, \
        "overhead_ci_width.dat" using ($12>0?$4-0.22*($4-$3):NaN):($6-0.22*($6-$5)) with points pt 9 ps 1.9 lc rgb 'white' notitle, \
        "overhead_ci_width.dat" using ($12>0?$4-0.22*($4-$3):NaN):($6-0.22*($6-$5)) with points pt 9 ps 1.2 lc rgb 'black' notitle, \
        "overhead_ci_width.dat" using ($12<0?$3+0.22*($4-$3):NaN):($5+0.22*($6-$5)) with points pt 11 ps 1.9 lc rgb 'white' notitle, \
        "overhead_ci_width.dat" using ($12<0?$3+0.22*($4-$3):NaN):($5+0.22*($6-$5)) with points pt 11 ps 1.2 lc rgb 'black' notitle, \
        diagonal(x) with lines dt (8,8) lw 1.5 lc rgb '#99000000' notitle, \
        "overhead_ci_width.dat" using 1:2:($8==1?$9:""):10 with labels font ',7' tc rgb variable notitle
    unset multiplot
    set output
}
