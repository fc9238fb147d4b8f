# Overlap band map (r_overhead, eq. 1; analysis/README.md); mpich synthetic 1.0, progress
# Written by nbc-analyze; edit and re-run from this folder:
#   gnuplot bands.gp
# It renders bands.png, bands.svg and bands.pdf, 3.50 x 4.07 in, text 8 pt.
set encoding utf8
do for [fmt in "png svg pdf"] {
    if (fmt eq "png") { set terminal pngcairo size 700,814 font "DejaVu Sans,8" fontscale 2.0833 linewidth 2.7778 noenhanced }
    if (fmt eq "svg") { set terminal svg size 252,293 font "DejaVu Sans,8" noenhanced }
    if (fmt eq "pdf") { set terminal pdfcairo size 3.50in,4.07in font "DejaVu Sans,8" fontscale 0.7500 noenhanced }
    set output "bands.".fmt
    set multiplot layout 1,1 title "ibcast overlap bands, mpich synthetic 1.0, progress"
    set title ""
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
    unset colorbox
    set bmargin 10
    set key at screen 0.5,0.01 center bottom vertical reverse Left samplen 1.5 font ',7'
    plot 'bands.dat' index 0 using 1:2:3:4:5:6 with boxxyerror fs solid 1.0 border lc rgb 'white' lc rgb '#4477AA' title 'hidden (HID)', \
        'bands.dat' index 1 using 1:2:3:4:5:6 with boxxyerror fs solid 1.0 border lc rgb 'white' lc rgb '#66CCEE' title 'partial (PAR)', \
        'bands.dat' index 2 using 1:2:3:4:5:6 with boxxyerror fs solid 1.0 border lc rgb 'white' lc rgb '#EE6677' title 'none (NO)', \
        "bands.dat" using ($9==0?$1:NaN):2:($3+0.12*($4-$3)):($4-0.12*($4-$3)):($5+0.12*($6-$5)):($6-0.12*($6-$5)) with boxxyerror fs empty lc rgb 'white' lw 3 notitle, \
        "bands.dat" using ($9==0?$1:NaN):2:($3+0.12*($4-$3)):($4-0.12*($4-$3)):($5+0.12*($6-$5)):($6-0.12*($6-$5)) with boxxyerror fs empty lc rgb 'black' dt (3,2) lw 1.5 title "interval leaves the band (0 of 16)", \
        diagonal(x) with lines dt (8,8) lw 1.5 lc rgb '#99000000' title 'equal times', \
        'bands.dat' using 1:2:7:8 with labels font ',7' tc rgb variable notitle, \
        'bands.dat' using 1:($2-0.3*($6-$5)):10:8 with labels font ',7' tc rgb variable notitle
    unset multiplot
    set output
}
