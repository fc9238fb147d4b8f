"""Where the ranks go: on this machine, on --hosts, or in a Slurm
allocation; how many ranks, per node, and cores per rank; and whether a
library x deployment can run there."""
import os
import shutil
from dataclasses import dataclass

from .common import BadInput, note
from .launch import launch_refusal


@dataclass
class Placement:
    mode: str  # local, hosts or slurm
    nodes: int
    ranks: int
    per_node: int
    cores_here: int  # the cores nbc-run may use here
    cores_per_rank: int  # 0: unknown here (bench_nbc checks on the node); 1: oversubscribed
    launcher: str  # mpiexec or srun
    hosts: str = ""
    rsh: str = ""
    threads_setting: int = 0  # run.threads (0: one per core)

    table: object = None  # the deployments (deployments.Table), set by the planner

    def threads_of(self, deployment):
        """The computing threads per rank that the launcher is told (it
        leaves a process of several unbound), None when unknown here: one
        fewer where the library's threads take the cores left free."""
        if self.threads_setting:
            return self.threads_setting
        if self.cores_per_rank > 0:
            row = self.table.get(deployment) if deployment else self.table.default
            return self.cores_per_rank - (1 if row and row.library_threads == "free" else 0)
        return None

    def deployment_sets(self, deployment):
        """Keys a deployment needs with this placement, before the study's own
        (which win): with one core per rank a deployment whose progress
        thread may share the computing core (deployments.def, CORES
        FREE_OR_SHARED) runs only when told (progress.oversubscribe,
        deploy/plan.c)."""
        row = self.table.get(deployment)
        if row and row.may_share_one_core and self.cores_per_rank == 1:
            return ["progress.oversubscribe=true"]
        return []

    def plan_sets(self, deployment):
        """The assignments the deployment plan is asked with: the
        placement's keys and run.threads."""
        threads = ["run.threads={}".format(self.threads_setting)] if self.threads_setting else []
        return self.deployment_sets(deployment) + threads

    def why_not(self, profiles, p, deployment):
        """Empty when the profile p's library can run the deployment here,
        else the reason: the deployment plan's refusal (profiles.plan, for
        this placement's cores per rank), else the launcher's (the busy-poll
        rule, mpiprofile/launch.c). A deployment the tools' table lacks (a
        build that knows more) is left to that build's own plan."""
        if self.table.get(deployment) is None:
            return launch_refusal(self, p)
        plan = profiles.plan(p, deployment, self.cores_per_rank, self.plan_sets(deployment))
        if plan.get("status") != "ok":
            refusal = plan.get("refusal", "refused")
            prefix = 'config: run.deployment: "{}" '.format(deployment)
            return (deployment + " " + refusal[len(prefix):] if refusal.startswith(prefix) else
                    refusal)
        return launch_refusal(self, p)


def unpin_openmp():
    """libgomp binds the main thread to the first place at start-up when
    OMP_PLACES or OMP_PROC_BIND=true is set, so bench_nbc would see one core
    only; it binds its threads itself, one per core."""
    places, bind = os.environ.get("OMP_PLACES", ""), os.environ.get("OMP_PROC_BIND", "")
    if places or (bind and bind != "false"):
        note("ignoring OMP_PLACES='{}' OMP_PROC_BIND='{}': bench_nbc binds its threads "
             "itself (libgomp would pin the main thread to one core first)"
             .format(places, bind))
        os.environ.pop("OMP_PLACES", None)
        os.environ["OMP_PROC_BIND"] = "false"


def place(options, ranks_choice, threads_setting):
    """The placement of this invocation (--hosts, else the Slurm allocation,
    else this machine) for ranks_choice (N or auto)."""
    unpin_openmp()
    env = os.environ
    if options.hosts:
        mode, nodes = "hosts", len(options.hosts.split(","))
    elif env.get("SLURM_JOB_ID"):
        mode = "slurm"
        nodes = int(env.get("SLURM_NNODES") or env.get("SLURM_JOB_NUM_NODES") or 1)
    else:
        mode, nodes = "local", 1
    cores_here = os.cpu_count() or 1
    if hasattr(os, "sched_getaffinity"):
        cores_here = len(os.sched_getaffinity(0))
    if ranks_choice != "auto":
        ranks = int(ranks_choice)
    elif mode == "hosts":
        ranks = nodes
    elif mode == "slurm":
        ranks = int(env.get("SLURM_NTASKS") or nodes)
    else:
        ranks = min(2, cores_here)
    per_node = (ranks + nodes - 1) // nodes
    if mode == "local":
        cores_per_rank = max(1, cores_here // ranks)  # 1: oversubscribed
    elif mode == "slurm":
        cores_per_rank = int(env.get("SLURM_CPUS_PER_TASK") or 0)
        if not cores_per_rank and env.get("SLURM_CPUS_ON_NODE"):
            cores_per_rank = int(env["SLURM_CPUS_ON_NODE"]) // per_node
    else:
        cores_per_rank = 0
    if mode != "local" and ranks < nodes:
        raise BadInput("--ranks {}: fewer ranks than the {} nodes (one rank per node at "
                       "least)".format(ranks, nodes))
    if options.launcher == "auto":
        launcher = "srun" if mode == "slurm" and shutil.which("srun") else "mpiexec"
    else:
        launcher = options.launcher
        if launcher == "srun" and mode != "slurm":
            raise BadInput("--launcher srun: not inside a Slurm allocation (SLURM_JOB_ID is "
                           "not set)")
    return Placement(mode=mode, nodes=nodes, ranks=ranks, per_node=per_node,
                     cores_here=cores_here, cores_per_rank=cores_per_rank, launcher=launcher,
                     hosts=options.hosts, rsh=options.rsh, threads_setting=threads_setting)
