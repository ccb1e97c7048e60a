/*
 * query_scan.h — singletable.query in FROM as a scan that streams its rows
 * (query_scan.c).
 *
 * Include after postgres.h.
 */
#ifndef SINGLETABLE_QUERY_SCAN_H
#define SINGLETABLE_QUERY_SCAN_H

/* singletable.query_scan (guc.c): off plans every call as a FunctionScan */
extern bool st_query_scan;

/* Registers the custom scan and its planner hook (from _PG_init) */
extern void st_query_scan_init(void);

#endif
