# Spack recipe for bench_nbc (package bench-nbc), built with its own Makefile.
#
# The folder spack_repo/bench_nbc above is a package repository of Spack's
# current layout (repo.yaml, api v2.0; Spack 1.0 and later):
#     spack repo add /path/to/bench_nbc/packaging/spack/spack_repo/bench_nbc
#     spack install --add bench-nbc ^mpich ^openblas      (in an environment)
# or, to build a checkout of yours:
#     spack develop --path /path/to/bench_nbc bench-nbc@main
# `make install PREFIX=...` lays out the prefix: programs in bin/, nbc-run's
# configurations, profiles, documentation and module files in share/bench_nbc/.

from spack_repo.builtin.build_systems.makefile import MakefilePackage

from spack.package import *

# The Makefile's BLAS=... for each Spack provider of "blas"; others: generic.
BLAS_OF_PROVIDER = {
    "openblas": "openblas",
    "amdblis": "blis",
    "blis": "blis",
    "intel-oneapi-mkl": "mkl",
    "intel-mkl": "mkl",
}


class BenchNbc(MakefilePackage):
    """bench_nbc measures how well an MPI library overlaps nonblocking
    collectives with multithreaded computation (the BenchNBC method: target
    times on both axes, a global clock, a window barrier), and tells why
    when it does not: no progress, computation slowdown or contention."""

    # Placeholders until the project is published (it has no public address
    # and no licence file yet). The publisher sets:
    #   homepage  the project's public web page, https://...;
    #   git       the clone URL of the public repository, https://....git,
    #             which holds the branch main and the tag v0.9.0 below
    #             (spack install fetches from it; until then, build a
    #             checkout with spack develop);
    #   license   the SPDX identifier of the licence file added to the tree,
    #             e.g. license("BSD-3-Clause"), in place of the LicenseRef.
    homepage = "https://example.org/bench_nbc"
    git = "https://example.org/bench_nbc.git"

    license("LicenseRef-bench-nbc-unpublished")

    version("main", branch="main")
    version("0.9.0", tag="v0.9.0")

    variant("hwloc", default=True, description="Place computing threads on physical cores with hwloc")
    variant("plots", default=True, description="gnuplot at run time, for the figures")

    depends_on("c", type="build")
    depends_on("gmake", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("mpi")
    depends_on("blas")
    depends_on("json-c")
    depends_on("libinih")
    depends_on("hwloc", when="+hwloc")
    depends_on("python@3.7:", type="run")  # nbc-run, the study runner (dataclasses)
    depends_on("gnuplot", type="run", when="+plots")
    depends_on("cmocka", type="test")
    # One BLAS thread per dgemm call: the suite runs one OpenMP thread per core.
    depends_on("openblas threads=none", when="^[virtuals=blas] openblas")

    def make_variables(self):
        """The Makefile's toolchain variables for this spec."""
        spec = self.spec
        blas = spec["blas"]
        variables = [
            f"CC={spack_cc}",
            f"MPICC={spec['mpi'].mpicc}",
            f"BLAS={BLAS_OF_PROVIDER.get(blas.name, 'generic')}",
            f"BLAS_CFLAGS={blas.headers.include_flags}",
            f"BLAS_LIBS={blas.libs.ld_flags}",
        ]
        variables.append("HWLOC=1" if spec.satisfies("+hwloc") else "HWLOC=0")
        return variables

    # Spack provides every dependency: scripts/deps.sh is skipped (make -o deps),
    # it would otherwise look at (and, as root on Debian, install) system packages.
    @property
    def build_targets(self):
        return ["-o", "deps", *self.make_variables(), "programs"]

    @property
    def install_targets(self):
        return ["-o", "deps", *self.make_variables(), f"PREFIX={self.prefix}", "install"]

    def check(self):
        make("-o", "deps", *self.make_variables(), "check")
