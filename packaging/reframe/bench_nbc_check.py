"""A ReFrame test of bench_nbc (docs/harnesses.md): runs a study through
nbc-run on the module `bench_nbc` and reads its cells table from stdout
(docs/formats.md, "cells.txt"), one row per cell. The regular expressions
below are tested against a real run's stdout by bench_nbc's `make check`
(tests/install/harnesses.sh); ReFrame itself is not installed there.
ReFrame 4."""
import reframe as rfm
import reframe.utility.sanity as sn

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
    num_tasks = 1  # nbc-run starts the ranks itself (srun inside the job)
    time_limit = '30m'
    executable = 'nbc-run'

    @run_before('run')
    def set_options(self):
        self.executable_opts = ['default.conf', '--collectives', self.collective,
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
