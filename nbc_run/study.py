"""What a study runs: its file ([study] section, or a bench_nbc
configuration alone), the options over it, and the recorded study being
resumed -> a StudySpec. The precedence of each choice: the option, then
--set of the key bench_nbc reads, then the study file's [study] key, then
its other sections (like --set), then the configuration, then the default."""
import os
import random
import re
from dataclasses import dataclass
from typing import List

from .common import BadInput, first_of, ini_get, read_ini
from .fingerprint import DEFAULT_PERIODS_US, read_periods

STUDY_KEYS = ["config", "collectives", "deployments", "mpi", "settings", "ranks", "launches",
              "launch_order", "seed", "fingerprint"]
LAUNCH_ORDERS = ["interleaved", "shuffled"]
# Keys nbc-run sets itself for each run: given with --set they choose the
# study's value, and are not passed on.
RUN_KEYS = ("run.collective", "run.deployment", "run.mpi")


@dataclass
class StudySpec:
    config: str  # the file given (absolute)
    base_config: str  # the bench_nbc configuration it runs
    study_sets: List[str]  # section.key=value of the study file's other sections
    passed_sets: List[str]  # --set options passed on to bench_nbc
    collective_list: List[str]
    collectives_text: str
    deployment_list: List[str]  # or ["auto"]
    mpis_text: str
    setting_name: str
    setting_values: List[str]
    ranks_choice: str  # N or auto
    launches: int
    launch_order: str
    seed: int
    results_dir: str
    threads_setting: int
    # A fingerprint's MPI_Test periods (us, as given); empty: not a fingerprint.
    fingerprint_periods: List[str]

    def bench_args(self, collective, deployment, mpi, placement_sets=(), run_sets=()):
        """bench_nbc's arguments for a new run of this study (placement_sets:
        what the deployment needs where it runs, overridden by the study's;
        run_sets: the run's own --set, a fingerprint's period)."""
        sets = list(placement_sets) + self.study_sets + self.passed_sets + list(run_sets) + [
            "run.collective=" + collective, "run.deployment=" + deployment, "run.mpi=" + mpi]
        args = ["-c", self.base_config]
        for s in sets:
            args += ["--set", s]
        return args


def find_config(given, base_dir, root):
    """CONFIG as given, else looked up in the configurations (configs/) and
    the root: its absolute path."""
    config = os.path.join(base_dir, given)
    if not os.path.isfile(config) and not os.path.isabs(given):
        configs_dir = os.path.join(root, "configs")
        for candidate in (os.path.join(configs_dir, given[len("configs/"):]
                                       if given.startswith("configs/") else given),
                          os.path.join(root, given)):
            if os.path.isfile(candidate):
                config = candidate
                break
    if not (os.path.isfile(config) and os.access(config, os.R_OK)):
        raise BadInput("CONFIG: cannot read '{}'".format(given))
    return os.path.abspath(config)


def read_settings(text):
    """settings = NAME=V1,V2,...: the library setting the study varies
    (name, values)."""
    if not text:
        return "", []
    m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)=([A-Za-z0-9_.:+-]+(,[A-Za-z0-9_.:+-]+)*)",
                     text.strip())
    if not m:
        raise BadInput("settings: '{}' is not NAME=VALUE,VALUE,... (an environment variable "
                       "and its values, letters, digits and _.:+- each, e.g. "
                       "MPIR_CVAR_IBCAST_INTRA_ALGORITHM=sched_binomial,sched_smp)"
                       .format(text))
    values = m.group(2).split(",")
    if len(set(values)) != len(values):
        raise BadInput("settings: '{}' names a value twice".format(text))
    return m.group(1), values


def read_study(config, o, workdir, resumed_seed=None):
    """The StudySpec of the file config with the options o; resumed_seed:
    the seed of the study being resumed (its order), when one is."""
    ini = read_ini(config)
    study = {}
    study_sets = []
    if "study" in ini:
        study = ini["study"]
        for key in study:
            if key not in STUDY_KEYS:
                raise BadInput("{}: unknown key study.{} (allowed: {})"
                               .format(config, key, ", ".join(STUDY_KEYS)))
        base = study.get("config", "")
        if not base:
            raise BadInput("{}: [study] has no 'config' key (the bench_nbc configuration it "
                           "runs)".format(config))
        base_config = os.path.join(os.path.dirname(config), base)
        if not os.access(base_config, os.R_OK):
            raise BadInput("{}: study.config: cannot read '{}'".format(config, base_config))
        for section, keys in ini.items():
            if section != "study":
                study_sets += ["{}.{}={}".format(section, k, v) for k, v in keys.items()]
    else:
        base_config = config
    base_ini = read_ini(base_config)

    def set_value(sets, key):  # the last --set of key
        values = [s.split("=", 1)[1] for s in sets if s.startswith(key + "=")]
        return values[-1] if values else ""

    def value(option, key, study_key, default):
        section, name = key.split(".")
        return first_of(option, set_value(o.sets, key), study.get(study_key, ""),
                        set_value(study_sets, key), ini_get(base_ini, section, name), default)

    passed_sets = [s for s in o.sets if s.split("=", 1)[0] not in RUN_KEYS]
    collectives = value(o.collectives, "run.collective", "collectives", "ibcast")
    deployments = value(o.deployments, "run.deployment", "deployments", "basic")
    mpis_text = value(o.mpi, "run.mpi", "mpi", "auto")
    setting_name, setting_values = read_settings(first_of(o.settings, study.get("settings", "")))
    ranks_choice = first_of(o.ranks, study.get("ranks", ""), "auto")
    launches = first_of(o.launches, study.get("launches", ""), "1")
    if not re.fullmatch(r"[1-9][0-9]*", launches):
        raise BadInput("launches: '{}' is not an integer >= 1".format(launches))
    launch_order = first_of(o.launch_order, study.get("launch_order", ""), "interleaved")
    if launch_order not in LAUNCH_ORDERS:
        raise BadInput("launch_order: unknown value '{}' (allowed: {})".format(
            launch_order, ",".join(LAUNCH_ORDERS)))
    seed = first_of(o.seed, study.get("seed", ""))
    if seed and not re.fullmatch(r"[0-9]+", seed):
        raise BadInput("seed: '{}' is not an integer >= 0".format(seed))
    if resumed_seed is not None and not seed:
        seed = str(resumed_seed)  # the order being resumed
    seed = int(seed) if seed else random.SystemRandom().randrange(1, 2 ** 31)
    # Checked against bench_nbc's plan once the build is known (Runner.plan).
    if not re.fullmatch(r"[a-z0-9_]+(,[a-z0-9_]+)*", deployments):
        raise BadInput("--deployments: '{}' is not a comma-separated list of names "
                       "(bench_nbc --plan lists them)".format(deployments))
    deployment_list = deployments.split(",")
    periods = []
    if o.fingerprint or study.get("fingerprint"):
        # Every deployment there is, and polling at the periods: the study's
        # own deployments would leave ways out.
        if o.deployments:
            raise BadInput("--deployments: a fingerprint runs every deployment its library "
                           "allows here and polling at the periods of study.fingerprint; "
                           "give no --deployments with it")
        periods = read_periods(study.get("fingerprint") or DEFAULT_PERIODS_US)
        deployment_list = ["auto"]
        # Polling given to every run would make every way a polling one.
        for s in study_sets + o.sets:
            if s.split("=", 1)[0] in ("progress.mode", "progress.test_period_us"):
                raise BadInput("{}: a fingerprint polls with MPI_Test in its own runs only "
                               "(study key fingerprint = P1,P2,...); give no {} with it".format(
                                   s, s.split("=", 1)[0]))
    if "auto" in deployment_list and len(deployment_list) > 1:
        raise BadInput("--deployments: auto chooses the deployments itself and takes no "
                       "others (allowed: auto, or names bench_nbc --plan lists)")
    if not re.fullmatch(r"[a-z0-9_]+(,[a-z0-9_]+)*", collectives):
        raise BadInput("--collectives: '{}' is not a comma-separated list of names "
                       "(bench_nbc --list shows them)".format(collectives))
    if not re.fullmatch(r"[1-9][0-9]*|auto", ranks_choice):
        raise BadInput("ranks: '{}' is not an integer >= 1 or auto".format(ranks_choice))
    results = first_of(set_value(o.sets, "run.results_dir"),
                       set_value(study_sets, "run.results_dir"),
                       ini_get(base_ini, "run", "results_dir"), "results")
    threads = first_of(set_value(o.sets, "run.threads"), set_value(study_sets, "run.threads"),
                       ini_get(base_ini, "run", "threads"), "0")
    return StudySpec(config=config, base_config=base_config, study_sets=study_sets,
                     passed_sets=passed_sets, collective_list=collectives.split(","),
                     collectives_text=collectives, deployment_list=deployment_list,
                     mpis_text=mpis_text, setting_name=setting_name,
                     setting_values=setting_values, ranks_choice=ranks_choice,
                     launches=int(launches), launch_order=launch_order, seed=seed,
                     results_dir=os.path.join(workdir, results),
                     threads_setting=int(threads) if threads.isdigit() else 0,
                     fingerprint_periods=periods)
