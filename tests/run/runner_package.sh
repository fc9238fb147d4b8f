#!/usr/bin/env bash
# nbc-run's package (nbc_run/) without running a study: study.json's records
# read and written back give the same members in the same order (an unknown
# member kept, the optional ones only when set, null_coverage also as null);
# the command line keeps the arguments study.json records in their order,
# with paths made absolute and this invocation's own options left out; each launcher flag of the command
# lines comes from the library profile through nbc-profile launch (a made-up
# profile's flags appear, none of MPICH's or Open MPI's). No MPI: Python and
# nbc-profile.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
make_scratch
mkdir -p "$SCRATCH/profiles"
printf '%s\n' '[library]' 'display_name = Made' 'match = Made MPI' '[launcher]' 'command = launchit' \
    'flags = -L' 'as_root = -R' 'oversubscribe = -O' 'no_bind = -B' 'hosts = -H' 'per_node = -P{n}' \
    'rsh = -S' 'srun_mpi = pmx' >"$SCRATCH/profiles/made.ini"
export BENCH_NBC_PROFILES=$SCRATCH/profiles
cat >"$SCRATCH/check.py" <<'PY'
import json, os, sys
root, tool = sys.argv[1], sys.argv[2]
sys.path[:0] = [root, os.path.join(root, "cli")]
from nbc_run.cli import parse_arguments
from nbc_run.launch import launch_cmd, ref_cmd
from nbc_run.placement import Placement
from nbc_run.profiles import Profile
from nbc_run.records import StudyRecord

def check(ok, what):
    if not ok:
        sys.exit(what)

run = {"mpi": "mpich", "collective": "ibcast", "deployment": "basic",
       "setting": {"name": "X", "value": "a"}, "name": "mpich-ibcast-basic-a", "launch": 2,
       "index": 3, "bench_nbc_args": ["-c", "c.conf"], "run_dir": "/r/x", "status": "no_valid_cell",
       "steps_done": ["calibration"], "start_time": "t0", "end_time": "t1",
       "bench_nbc_status": "complete", "no_valid_cell_reason": "why", "later": [1]}
plain = dict(run, setting=None, status="pending", run_dir=None)
del plain["bench_nbc_status"], plain["no_valid_cell_reason"], plain["later"]
study = {"format": 1, "config": "/c", "base_config": "/b", "arguments": ["C", "--mpi", "x"],
         "cwd": "/w", "results_dir": "/w/results", "study": {"seed": 7}, "created": "t",
         "status": "complete", "skipped": [], "runs": [run, plain], "comparisons": ["/w/c"],
         "table": "study.csv", "dictionary": "study_columns.json", "null_coverage": None,
         "end_time": "t2",
         "resumed": ["t3"], "pooled": {"n": 1}}
again = StudyRecord.from_json(json.loads(json.dumps(study))).to_json()
check(json.dumps(again) == json.dumps(study),
      "study.json does not read back as written:\n{}\n{}".format(study, again))
check("resumed" not in StudyRecord.from_json(dict(study, resumed=None)).to_json(),
      "an unset optional member is written")

o = parse_arguments(["--mpi=mpich", "s.conf", "--dry-run", "--set", "run.results_dir=out",
                     "--resume", "st", "--launches", "2", "--build-dir", "b"], "/base")
check(o.recorded == ["--mpi", "mpich", "s.conf", "--set", "run.results_dir=/base/out",
                     "--launches", "2", "--build-dir", "/base/b"],
      "recorded arguments: {}".format(o.recorded))
check((o.config, o.dry_run, o.resume, o.build_dir) == ("s.conf", True, "/base/st", "/base/b"),
      "parsed options: {}".format(o))

made_up = Profile(mpi_profile="made", mpi_label="Made", mpi_launcher="", busy_polls=False,
                  unsupported={}, bin_dir="/bin_dir", tool=tool)
hosts = Placement(mode="hosts", nodes=2, ranks=4, per_node=2, cores_here=2, cores_per_rank=0,
                  launcher="mpiexec", hosts="h1,h2", rsh="ssh-like")
cmd = launch_cmd(hosts, made_up, 4, 2, None, ["prog"])
root_flags = ["-R"] if os.getuid() == 0 else []
check(cmd == ["launchit", "-L"] + root_flags + ["-B", "-S", "ssh-like", "-H", "h1,h2", "-P2",
                                                  "-n", "4", "prog"], "hosts command: {}".format(cmd))
local = Placement(mode="local", nodes=1, ranks=3, per_node=3, cores_here=2, cores_per_rank=1,
                  launcher="mpiexec")
cmd = launch_cmd(local, made_up, 3, 3, 1, ["prog"])
check(cmd == ["launchit", "-L"] + root_flags + ["-O", "-n", "3", "prog"],
      "local command: {}".format(cmd))
check(ref_cmd(local, made_up, "/run", "before") ==
      ["/bin_dir/compute_ref", "--run", "/run", "--phase", "before"], "local compute_ref")
os.environ.pop("SLURM_CPUS_PER_TASK", None)
slurm = Placement(mode="slurm", nodes=2, ranks=2, per_node=1, cores_here=2, cores_per_rank=2,
                  launcher="srun")
cmd = launch_cmd(slurm, made_up, 2, 1, 2, ["prog"])
check(cmd == ["srun", "--nodes=2", "--ntasks=2", "--ntasks-per-node=1", "--mpi=pmx", "prog"],
      "srun command: {}".format(cmd))
cmd = launch_cmd(slurm, made_up, 2, 1, 2, ["prog"], mpi=False)
check(cmd == ["srun", "--nodes=2", "--ntasks=2", "--ntasks-per-node=1", "prog"],
      "srun command of a program without MPI: {}".format(cmd))
print("records: 2 runs read back member for member; the recorded arguments in order; "
      "4 launcher commands from a made-up profile")
PY
out=$(python3 "$SCRATCH/check.py" "$BENCH_NBC_ROOT" "$TOOLS_DIR/nbc-profile" 2>&1) || fail "$out"
figure "nbc_run: $out"
