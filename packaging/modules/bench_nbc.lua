-- Lmod module file for bench_nbc, one per version. `make install PREFIX=DIR
-- [MODULE_MPI=NAME]` writes a copy with DIR, the version and NAME below into
-- DIR/share/bench_nbc/modulefiles/lmod/bench_nbc/VERSION.lua; then:
--     module use DIR/share/bench_nbc/modulefiles/lmod
--     module load bench_nbc          (or bench_nbc/VERSION)
-- As an example for a site's module tree, set the three values by hand.
local prefix = "/opt/bench_nbc"
local version = "0.9.0"
-- The site's module of the MPI library bench_nbc was built with (e.g.
-- "mpich/4.0.2", "openmpi/4.1.4"); empty: the library is on the system path.
local mpi_module = "mpich"
local share = pathJoin(prefix, "share/bench_nbc")

whatis("Name: bench_nbc")
whatis("Version: " .. version)
whatis("Description: overlap of MPI nonblocking collectives with computation (BenchNBC method)")
help([[
bench_nbc measures how well an MPI library overlaps nonblocking collectives
with multithreaded computation (nbc-run, bench_nbc, compute_ref, nbc-analyze,
nbc-compare). The configurations are in $BENCH_NBC_CONFIGS, e.g.
    nbc-run $BENCH_NBC_CONFIGS/study-default.conf
Documentation: ]] .. share .. [[/README.md
bench_nbc is linked against one MPI library (its module is loaded with this
one) and one BLAS.
]])

-- bench_nbc runs only with the MPI library it was linked with.
if mpi_module ~= "" then
    depends_on(mpi_module)
end
prepend_path("PATH", pathJoin(prefix, "bin"))
setenv("BENCH_NBC_CONFIGS", pathJoin(share, "configs"))
setenv("BENCH_NBC_VERSION", version)
