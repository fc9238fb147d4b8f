/* The visits of the sweep's cells (visit_plan.h). */
#include "bench_nbc/measure/visit_plan.h"

int nbc_planned_visits(int repetitions, int visits)
{
    if (visits < 1)
        return 1;
    return visits < repetitions ? visits : (repetitions > 0 ? repetitions : 1);
}

int nbc_visit_blocks(int repetitions, int visits, int cycle_blocks, int visit)
{
    int planned = nbc_planned_visits(repetitions, visits);
    if (visit >= planned)
        return cycle_blocks;
    return repetitions / planned + (visit < repetitions % planned);
}

int nbc_visits_made(int repetitions, int visits, int cycle_blocks, int blocks)
{
    int made = 0;
    for (int done = 0; made == 0 || done < blocks; made++)
        done += nbc_visit_blocks(repetitions, visits, cycle_blocks > 0 ? cycle_blocks : 1, made);
    return made;
}

size_t nbc_chunk_count(size_t cells)
{
    size_t chunks = (cells + NBC_VISIT_SPAN - 1) / NBC_VISIT_SPAN;
    return chunks > 0 ? chunks : 1;
}

size_t nbc_chunk_start(size_t cells, size_t chunk)
{
    size_t chunks = nbc_chunk_count(cells);
    return chunk >= chunks
               ? cells
               : chunk * (cells / chunks) + (chunk < cells % chunks ? chunk : cells % chunks);
}
