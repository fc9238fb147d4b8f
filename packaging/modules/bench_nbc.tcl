#%Module1.0
# Environment Modules (Tcl) module file for bench_nbc, one per version.
# `make install PREFIX=DIR [MODULE_MPI=NAME]` writes a copy with DIR, the
# version and NAME below as DIR/share/bench_nbc/modulefiles/tcl/bench_nbc/VERSION;
# then:
#     module use DIR/share/bench_nbc/modulefiles/tcl
#     module load bench_nbc          (or bench_nbc/VERSION)
# As an example for a site's module tree, set the three values by hand.
set prefix /opt/bench_nbc
set version 0.9.0
# The site's module of the MPI library bench_nbc was built with (e.g.
# mpich/4.0.2, openmpi/4.1.4); empty: the library is on the system path.
set mpi_module mpich
set share $prefix/share/bench_nbc

proc ModulesHelp {} {
    global share
    puts stderr "bench_nbc measures how well an MPI library overlaps nonblocking collectives"
    puts stderr "with multithreaded computation (nbc-run, bench_nbc, compute_ref, nbc-analyze,"
    puts stderr "nbc-compare). The configurations are in \$BENCH_NBC_CONFIGS, e.g."
    puts stderr "    nbc-run \$BENCH_NBC_CONFIGS/study-default.conf"
    puts stderr "Documentation: $share/README.md"
    puts stderr "bench_nbc is linked against one MPI library (its module must be loaded"
    puts stderr "first) and one BLAS."
}
module-whatis "Name: bench_nbc"
module-whatis "Version: $version"
module-whatis "Description: overlap of MPI nonblocking collectives with computation (BenchNBC method)"

# bench_nbc runs only with the MPI library it was linked with.
if {$mpi_module ne ""} {
    prereq $mpi_module
}
prepend-path PATH $prefix/bin
setenv BENCH_NBC_CONFIGS $share/configs
setenv BENCH_NBC_VERSION $version
