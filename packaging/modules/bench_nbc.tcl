#%Module1.0
# Environment Modules (Tcl) module file for bench_nbc. `make install PREFIX=DIR`
# writes a copy with DIR below as DIR/share/bench_nbc/modulefiles/tcl/bench_nbc;
# then:
#     module use DIR/share/bench_nbc/modulefiles/tcl
#     module load bench_nbc
# As an example for a site's module tree, set prefix by hand.
set prefix /opt/bench_nbc
set share $prefix/share/bench_nbc

proc ModulesHelp {} {
    global share
    puts stderr "bench_nbc measures how well an MPI library overlaps nonblocking collectives"
    puts stderr "with multithreaded computation (nbc-run, bench_nbc, compute_ref, nbc-analyze,"
    puts stderr "nbc-compare). The configurations are in \$BENCH_NBC_CONFIGS, e.g."
    puts stderr "    nbc-run \$BENCH_NBC_CONFIGS/study-default.conf"
    puts stderr "Documentation: $share/README.md"
    puts stderr "bench_nbc is linked against one MPI library and one BLAS: load the modules"
    puts stderr "the build used before this one."
}
module-whatis "Name: bench_nbc"
module-whatis "Description: overlap of MPI nonblocking collectives with computation (BenchNBC method)"

# The MPI and BLAS modules of the build (names are the site's), e.g.:
# prereq mpich openblas
prepend-path PATH $prefix/bin
setenv BENCH_NBC_CONFIGS $share/configs
