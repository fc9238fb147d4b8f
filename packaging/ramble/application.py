"""A Ramble application for bench_nbc (docs/harnesses.md): one workload per
collective, run through nbc-run, its cells table (docs/formats.md,
"cells.txt") read with one context per cell. The regular expressions below
are tested against a real run's stdout by bench_nbc's `make check`
(tests/install/harnesses.sh), and the command it runs, with its ranks,
runs under a real Slurm there (tests/run/slurm_real.sh); Ramble itself is
not installed there. Place it as
var/ramble/repos/builtin/applications/bench-nbc/application.py; the suite
comes from Spack (packaging/spack/: the package bench-nbc)."""
from ramble.appkit import *  # noqa: F401,F403 (Ramble's application DSL)

# One row of the cells table: the cell number, then 15 fields one or more
# spaces apart, in the order of docs/formats.md (cells.txt).
CELL_ROW = (r'^\s+(?P<cell>\d+)\s+(?P<comm_target_ms>\S+)\s+(?P<comp_target_ms>\S+)'
            r'\s+(?P<bytes>\d+)\s+(?P<gemm_n>\d+)\s+(?P<t_comm_ms>\S+)\s+(?P<t_comp_ms>\S+)'
            r'\s+(?P<r_overhead>\S+)\s+(?P<r_overhead_lo>\S+)\s+(?P<r_overhead_hi>\S+)'
            r'\s+(?P<r_comm>\S+)\s+(?P<r_comp_slowdown>\S+)\s+(?P<diagnosis>[a-z_]+)'
            r'\s+(?P<point_class>[a-z_]+)\s+(?P<osu_overlap_pct>\S+)\s+(?P<imb_overlap_pct>\S+)$')
TABLE_END = r'^# end of cells: (?P<cells>\d+)$'


class BenchNbc(ExecutableApplication):  # noqa: F405
    """Overlap of MPI nonblocking collectives with computation (BenchNBC)."""
    name = 'bench-nbc'
    tags('mpi', 'nonblocking-collectives', 'overlap')  # noqa: F405

    # The suite and its MPI library from Spack (packaging/spack/).
    with when('package_manager_family=spack'):  # noqa: F405
        software_spec('bench-nbc', pkg_spec='bench-nbc')  # noqa: F405
        required_package('bench-nbc', package_manager='spack*')  # noqa: F405

    # nbc-run starts the ranks itself (srun inside the allocation, the
    # library's mpiexec elsewhere): no MPI launcher in front of it, the
    # experiment's n_ranks passed on.
    executable('study', 'nbc-run {config} --format text --collectives {collective} '  # noqa: F405
               '--deployments {deployment} --ranks {n_ranks} '
               '--set run.results_dir={experiment_run_dir}/results',
               use_mpi=False)
    workload('overlap', executables=['study'])  # noqa: F405
    workload_variable('config', default='default.conf',  # noqa: F405
                      description='a configuration of configs/ or a path', workloads=['overlap'])
    workload_variable('collective', default='ibcast',  # noqa: F405
                      description='bench_nbc --list', workloads=['overlap'])
    workload_variable('deployment', default='basic',  # noqa: F405
                      description='basic, progress, dedicated, manual, thread',
                      workloads=['overlap'])

    figure_of_merit_context('cell', regex=CELL_ROW,  # noqa: F405
                            output_format='comm {comm_target_ms} ms x comp {comp_target_ms} ms')
    for fom, units in (('r_overhead', ''), ('r_overhead_lo', ''), ('r_overhead_hi', ''),
                       ('r_comm', ''), ('r_comp_slowdown', ''), ('diagnosis', ''),
                       ('osu_overlap_pct', '%'), ('imb_overlap_pct', '%'), ('bytes', 'B')):
        figure_of_merit(fom, fom_regex=CELL_ROW, group_name=fom, units=units,  # noqa: F405
                        contexts=['cell'])
    success_criteria('table', mode='string', match=TABLE_END)  # noqa: F405
