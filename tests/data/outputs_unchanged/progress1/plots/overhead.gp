# Overhead ratio r_overhead (paper eq. 1, section 5.2: 0 overlap, 1 serialized) and the width of its interval; mpich synthetic 1.0, progress
# Written by nbc-analyze; edit and re-run from this folder:
#   gnuplot overhead.gp
# It renders overhead.png, overhead.svg and overhead.pdf, 3.50 x 6.52 in, text 8 pt.
set encoding utf8
do for [fmt in "png svg pdf"] {
    if (fmt eq "png") { set terminal pngcairo size 700,1303 font "DejaVu Sans,8" fontscale 2.0833 linewidth 2.7778 noenhanced }
    if (fmt eq "svg") { set terminal svg size 252,469 font "DejaVu Sans,8" noenhanced }
    if (fmt eq "pdf") { set terminal pdfcairo size 3.50in,6.52in font "DejaVu Sans,8" fontscale 0.7500 noenhanced }
    set output "overhead.".fmt
    set multiplot layout 2,1 title "ibcast r_overhead, mpich synthetic 1.0, progress"
    set title "r_overhead"
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
    set cbrange [-0.2:1.2]
    set palette defined (-0.2 '#b8e3e9', -0.0001 '#b8e3e9', 0 '#00204d', 0.111111 '#00336f', 0.222222 '#39486b', 0.333333 '#575c6d', 0.444444 '#707173', 0.555556 '#8a8779', 0.666667 '#a69d75', 0.777778 '#c4b56c', 0.888889 '#e4cf5b', 1 '#ffea46', 1.0001 '#f1b6da', 1.2 '#f1b6da')
    set cblabel ""
    set colorbox
    unset logscale cb
    set cbtics ("<0" -0.1, "0" 0, "0.5" 0.5, "1" 1, ">1" 1.1)
    plot "overhead.dat" using 1:2:3:4:5:6:($8==1?$7:NaN) with boxxyerror fs solid 1.0 border lc rgb 'white' lc palette notitle, \
        "overhead.dat" using ($8==0?$1:NaN):2:3:4:5:6 with boxxyerror fs solid 1.0 border lc rgb 'white' lc rgb '#d9d9d9' notitle, \
        "overhead.dat" using ($8==0?$1:NaN):2:3:4:5:6 with boxxyerror fs transparent pattern 4 noborder lc rgb '#7f7f7f' notitle, \
        "overhead.dat" using ($11==1?$1:NaN):2:($3+0.1*($4-$3)):($4-0.1*($4-$3)):($5+0.1*($6-$5)):($6-0.1*($6-$5)) with boxxyerror fs empty lc rgb '#303030' dt (3,2) lw 1 notitle, \
        diagonal(x) with lines dt (8,8) lw 1.5 lc rgb '#99000000' notitle, \
        "overhead.dat" using 1:2:($8==1?$9:""):10 with labels font ',7' tc rgb variable notitle
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
    set cbtics autofreq
    plot "overhead_ci_width.dat" using 1:2:3:4:5:6:($8==1?$7:NaN) with boxxyerror fs solid 1.0 border lc rgb 'white' lc palette notitle, \
        "overhead_ci_width.dat" using ($8==0?$1:NaN):2:3:4:5:6 with boxxyerror fs solid 1.0 border lc rgb 'white' lc rgb '#d9d9d9' notitle, \
        "overhead_ci_width.dat" using ($8==0?$1:NaN):2:3:4:5:6 with boxxyerror fs transparent pattern 4 noborder lc rgb '#7f7f7f' notitle, \
        "overhead_ci_width.dat" using ($11==1?$1:NaN):2:($3+0.1*($4-$3)):($4-0.1*($4-$3)):($5+0.1*($6-$5)):($6-0.1*($6-$5)) with boxxyerror fs empty lc rgb '#303030' dt (3,2) lw 1 notitle, \
        diagonal(x) with lines dt (8,8) lw 1.5 lc rgb '#99000000' notitle, \
        "overhead_ci_width.dat" using 1:2:($8==1?$9:""):10 with labels font ',7' tc rgb variable notitle
    unset multiplot
    set output
}
