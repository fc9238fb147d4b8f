-- Lmod module file for bench_nbc. `make install PREFIX=DIR` writes a copy with
-- DIR below into DIR/share/bench_nbc/modulefiles/lmod/; then:
--     module use DIR/share/bench_nbc/modulefiles/lmod
--     module load bench_nbc
-- As an example for a site's module tree, set prefix by hand.
local prefix = "/opt/bench_nbc"
local share = pathJoin(prefix, "share/bench_nbc")

whatis("Name: bench_nbc")
whatis("Description: overlap of MPI nonblocking collectives with computation (BenchNBC method)")
help([[
bench_nbc measures how well an MPI library overlaps nonblocking collectives
with multithreaded computation (nbc-run, bench_nbc, compute_ref, nbc-analyze,
nbc-compare). The configurations are in $BENCH_NBC_CONFIGS, e.g.
    nbc-run $BENCH_NBC_CONFIGS/study-default.conf
Documentation: ]] .. share .. [[/README.md
bench_nbc is linked against one MPI library and one BLAS: load the modules
the build used before this one.
]])

-- The MPI and BLAS modules of the build (names are the site's), e.g.:
-- depends_on("mpich", "openblas")
prepend_path("PATH", pathJoin(prefix, "bin"))
setenv("BENCH_NBC_CONFIGS", pathJoin(share, "configs"))
