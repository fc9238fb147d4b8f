/* analysis/tables: a run's tables, written and read back: cells.csv,
 * cells_by_rank.csv, impact.csv (tables.c), and the cells table a harness
 * reads, cells.txt (harness_table.c; docs/formats.md). */
#ifndef ANALYSIS_TABLES_TABLES_H
#define ANALYSIS_TABLES_TABLES_H

#include "analysis/impact/impact.h"
#include "analysis/metrics/metrics.h"

#include <stdio.h>

/* cells.csv and cells_by_rank.csv into run_dir, and impact.csv when impact is
 * not NULL; each written to a temporary file and renamed into place. */
int analysis_write_tables(const char *run_dir, const cell_table *cells, const impact_table *impact,
                          analysis_error *err);

/* Reads back a cells.csv (the columns analysis_write_tables writes); rank
 * rows are not read. */
int analysis_parse_cells(const char *buf, size_t len, const char *file_name, cell_table *cells,
                         analysis_error *err);
/* Reads back an impact.csv. */
int analysis_parse_impact(const char *buf, size_t len, const char *file_name, impact_table *impact,
                          analysis_error *err);

/* The cells table a harness reads (cells.txt, nbc-analyze --table;
 * docs/formats.md): aligned text, or the same rows as JSON lines. */
typedef enum table_format { TABLE_NONE, TABLE_TEXT, TABLE_JSON, TABLE_FORMAT_COUNT } table_format;
/* "none", "text" or "json": 0, else -1. */
int analysis_table_format_parse(const char *name, table_format *format);

/* The cells table of a run in `format` (harness_table.c). */
int analysis_print_table(FILE *out, table_format format, const char *run_dir, const run_meta *meta,
                         const cell_table *cells, analysis_error *err);

#endif
