/*
 * bgw.h — what singletable's background workers have in common (bgw.c):
 * the index build worker (index_build.c), the TTL launcher and the TTL
 * workers (ttl_worker.c).
 */
#ifndef SINGLETABLE_BGW_H
#define SINGLETABLE_BGW_H

#include "postmaster/bgworker.h"

extern void st_bgworker_fill(BackgroundWorker *worker, const char *function, const char *type,
							 const char *name, int restart_time);

#endif
