/* provenance: the environment variables a run records (provenance.h). */
#include "provenance/provenance.h"

#include <string.h>

enum { META = PROVENANCE_ENV_META, NODE = PROVENANCE_ENV_NODE };

/* Variables that steer the MPI library, its launcher and transports, OpenMP,
 * the BLAS or the topology library, or what is loaded; an exact name ends
 * with '='. meta.json's environment holds what the user chose and a replay
 * sets again, so it is narrower where the launcher sets variables of its own
 * for each rank (OMPI_MCA_ rather than OMPI_, SLURM_JOB rather than SLURM_);
 * each node's provenance record holds everything that may explain its
 * measurements (the loader's paths, the vendor BLAS and OpenMP runtimes). */
const provenance_env_prefix provenance_env_prefixes[] = {
    {"MPICH_", META | NODE},
    {"MPIR_CVAR_", META | NODE},
    {"HYDRA_", META | NODE},
    {"OMPI_MCA_", META},
    {"OMPI_", NODE},
    {"PMI_", META | NODE},
    {"PMIX_", NODE},
    {"SLURM_JOB", META},
    {"SLURM_", NODE},
    {"I_MPI_", META | NODE},
    {"MV2_", META | NODE},
    {"MVP_", META | NODE},
    {"UCX_", META | NODE},
    {"FI_", META | NODE},
    {"OMP_", META | NODE},
    {"GOMP_", META | NODE},
    {"KMP_", NODE},
    {"OPENBLAS_", META | NODE},
    {"BLIS_", NODE},
    {"MKL_", NODE},
    {"HWLOC_", META},
    {"LD_PRELOAD=", NODE},
    {"LD_LIBRARY_PATH=", NODE},
};
const size_t provenance_env_prefix_count =
    sizeof provenance_env_prefixes / sizeof *provenance_env_prefixes;

bool provenance_env_recorded(const char *entry, unsigned record)
{
    for (size_t i = 0; i < provenance_env_prefix_count; i++) {
        const provenance_env_prefix *p = &provenance_env_prefixes[i];
        if ((p->records & record) && strncmp(entry, p->prefix, strlen(p->prefix)) == 0)
            return true;
    }
    return false;
}
