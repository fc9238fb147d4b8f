"""A ReFrame test of bench_nbc (docs/harnesses.md): runs a study through
nbc-run on the module `bench_nbc` and reads its cells table from stdout
(docs/formats.md, "cells.txt"), one row per cell. The regular expressions
below are tested against a real run's stdout by bench_nbc's `make check`
(tests/install/harnesses.sh), and the command it runs in its job (2 tasks,
one per node, nbc-run started by the local launcher) runs under a real
Slurm there (tests/run/slurm_real.sh); ReFrame itself is not installed
there. ReFrame 4."""
import reframe as rfm
import reframe.utility.sanity as sn
from reframe.core.backends import getlauncher

# One row of the cells table: the cell number, then 15 fields one or more
# spaces apart, in the order of docs/formats.md (cells.txt).
CELL_ROW = (r'^\s+(?P<cell>\d+)\s+(?P<comm_target_ms>\S+)\s+(?P<comp_target_ms>\S+)'
            r'\s+(?P<bytes>\d+)\s+(?P<gemm_n>\d+)\s+(?P<t_comm_ms>\S+)\s+(?P<t_comp_ms>\S+)'
            r'\s+(?P<r_overhead>\S+)\s+(?P<r_overhead_lo>\S+)\s+(?P<r_overhead_hi>\S+)'
            r'\s+(?P<r_comm>\S+)\s+(?P<r_comp_slowdown>\S+)\s+(?P<diagnosis>[a-z_]+)'
            r'\s+(?P<point_class>[a-z_]+)\s+(?P<osu_overlap_pct>\S+)\s+(?P<imb_overlap_pct>\S+)$')
# The line that closes a run's table: every cell was written.
TABLE_END = r'^# end of cells: (?P<cells>\d+)$'


@rfm.simple_test
class bench_nbc_overlap(rfm.RunOnlyRegressionTest):
    """r_overhead (eq. 1) and the share of cells where communication was
    overlapped, for one collective and deployment on two nodes."""
    collective = parameter(['ibcast', 'iallreduce'])
    deployment = parameter(['basic'])
    valid_systems = ['*']
    valid_prog_environs = ['*']
    modules = ['bench_nbc']
    # Two ranks, one per node as OSU's checks run (set num_tasks_per_node to 2
    # on a one-node partition). nbc-run starts them itself (srun inside the
    # job, SLURM_NTASKS ranks): the job runs it once, by the local launcher.
    num_tasks = 2
    num_tasks_per_node = 1
    time_limit = '30m'
    executable = 'nbc-run'
    # Two readings of the default sweep to compare runs with, not limits:
    # r_overhead 1 is a serialized collective, 0 a hidden one (eq. 1);
    # overlap in no cell is MPICH's and Open MPI's default (basic).
    reference = {
        '*': {
            'median_r_overhead': (1.0, None, None, ''),
            'overlap_cells_pct': (0.0, None, None, '%'),
        }
    }

    @run_before('run')
    def set_launcher(self):
        self.job.launcher = getlauncher('local')()

    @run_before('run')
    def set_options(self):
        self.executable_opts = ['default.conf', '--format', 'text',
                                '--collectives', self.collective,
                                '--deployments', self.deployment,
                                '--set', 'run.results_dir=results']

    @sanity_function
    def table_complete(self):
        cells = sn.count(sn.extractall(CELL_ROW, self.stdout, 'cell'))
        return sn.all([sn.assert_found(TABLE_END, self.stdout),
                       sn.assert_eq(cells, sn.extractsingle(TABLE_END, self.stdout, 'cells', int))])

    @performance_function('')
    def median_r_overhead(self):
        values = sn.extractall(CELL_ROW, self.stdout, 'r_overhead', float)
        return sn.sorted(values)[sn.count(values) // 2]

    @performance_function('%')
    def overlap_cells_pct(self):
        classes = sn.extractall(CELL_ROW, self.stdout, 'diagnosis')
        return 100 * sn.count(sn.filter(lambda c: c == 'overlap', classes)) / sn.count(classes)
