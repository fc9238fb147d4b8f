/* The collective as the configuration sets it up: its options (run.root,
 * run.datatype, run.in_place) and the buffers a message size needs. */
#include "bench_nbc/library/library.h"

coll_options nbc_coll_options(const nbc_config *cfg)
{
    int datatype = nbc_collective_datatype_find(cfg->run.datatype);
    return (coll_options){.root = cfg->run.root,
                          .datatype = datatype < 0 ? COLL_AUTO : (coll_datatype)datatype,
                          .in_place = cfg->run.in_place,
                          .background_share = cfg->run.background_share};
}

/* Before MPI_Init (--plan) the job's ranks are unknown (0): the buffers
 * and limits of the least job a run allows, 2 ranks, which every larger
 * job's reach or exceed. */
static int ranks_or_least(int ranks)
{
    return ranks >= 2 ? ranks : 2;
}

uint64_t nbc_config_buffer_bytes(const nbc_config *cfg, uint64_t bytes, int ranks, char *what,
                                 size_t whatlen)
{
    ranks = ranks_or_least(ranks);
    const nbc_collective *coll = nbc_collective_find(cfg->run.collective);
    if (!coll) /* validated before: unreachable */
        return 4 * bytes;
    coll_options options = nbc_coll_options(cfg);
    nbc_collective_describe_buffers(coll, &options, ranks, what, whatlen);
    return nbc_collective_buffer_bytes(coll, &options, bytes, ranks);
}

uint64_t nbc_config_size_limit(const nbc_config *cfg, int ranks, char *why, size_t whylen)
{
    ranks = ranks_or_least(ranks);
    const nbc_collective *coll = nbc_collective_find(cfg->run.collective);
    if (!coll) /* validated before: unreachable */
        return 0;
    coll_options options = nbc_coll_options(cfg);
    const mpiprofile_size_limit *limit;
    size_t most = nbc_library_max_bytes(coll, &options, ranks, &limit);
    if (!limit)
        return 0;
    char reason[1024];
    nbc_library_describe_limit(limit, reason, sizeof reason);
    snprintf(why, whylen, "the library's limit of %llu bytes per buffer (S = %zu bytes), %s",
             (unsigned long long)limit->max_bytes, most, reason);
    /* Recorded for meta.json: capped when the default goes past it. */
    nbc_library_record_size_limit(limit, coll->name, most, cfg->calibration.max_bytes > most);
    return most;
}
