# Cost curves of `rbfnet bench`, drawn from costs.csv beside this file.
# Render: cd <this folder> && gnuplot cost_curves.gp
set datafile separator ','
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
  set terminal pngcairo noenhanced size 1000,900 font 'sans,10'
} else {
  set terminal png noenhanced size 1000,900
}
set output 'cost_curves.png'
set multiplot layout 2,1 title 'rbfnet bench: Friedman #1 (synthetic, seed 42), 2000 rows x 20 features'
set grid
set key top left
set xlabel 'Gaussian nodes'
set xrange [0:*]
set yrange [0:*]
set arrow 1 from 108, graph 0 to 108, graph 1 nohead dashtype 2 linewidth 1.5 linecolor rgb '#444444'
set label 1 'crossover: 108 nodes' at 108, graph 0.95 offset 1,0 textcolor rgb '#444444'
set title 'Time per iteration (lines: median of 5 iterations, dots: each iteration)'
set ylabel 'ms per iteration'
set yrange [0:0.2469]
plot 'costs.csv' skip 1 using 3:(strcol(1) eq 'cpu' ? column(9) : NaN) with points pointtype 7 pointsize 0.4 linecolor rgb '#9ecae1' notitle, \
     'costs.csv' skip 1 using 3:(strcol(1) eq 'cpu' ? column(10) : NaN) with lines linewidth 2 linecolor rgb '#1f77b4' title 'cpu', \
     'costs.csv' skip 1 using 3:(strcol(1) eq 'gpu' ? column(9) : NaN) with points pointtype 7 pointsize 0.4 linecolor rgb '#a1d99b' notitle, \
     'costs.csv' skip 1 using 3:(strcol(1) eq 'gpu' ? column(10) : NaN) with lines linewidth 2 linecolor rgb '#2ca02c' title 'gpu', \
     'costs.csv' skip 1 using 3:(strcol(1) eq 'auto' ? column(9) : NaN) with points pointtype 7 pointsize 0.4 linecolor rgb '#fcae91' notitle, \
     'costs.csv' skip 1 using 3:(strcol(1) eq 'auto' ? column(10) : NaN) with lines linewidth 2 linecolor rgb '#d62728' title 'auto'
unset label
set yrange [0:*]
set title 'Cumulative time (setup included)'
set ylabel 'seconds'
plot 'costs.csv' skip 1 using 3:(strcol(1) eq 'cpu' ? column(11)/1000.0 : NaN) with lines linewidth 2 linecolor rgb '#1f77b4' title 'cpu', \
     'costs.csv' skip 1 using 3:(strcol(1) eq 'gpu' ? column(11)/1000.0 : NaN) with lines linewidth 2 linecolor rgb '#2ca02c' title 'gpu', \
     'costs.csv' skip 1 using 3:(strcol(1) eq 'auto' ? column(11)/1000.0 : NaN) with lines linewidth 2 linecolor rgb '#d62728' title 'auto'
unset multiplot
