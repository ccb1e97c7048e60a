/*
 * ttl_worker.h — the background TTL sweep: a launcher and one short-lived
 * worker per database (ttl_worker.c), with shared_preload_libraries only.
 */
#ifndef SINGLETABLE_TTL_WORKER_H
#define SINGLETABLE_TTL_WORKER_H

extern void st_ttl_worker_init(void);

#endif
