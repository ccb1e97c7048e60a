/*
 * stream_worker.h — the stream worker of a database (stream_worker.c): it
 * decodes the database's slot through the output plugin
 * (ops/stream_decode.c) and stores the records; started by the TTL
 * launcher (ttl_worker.c) for every database whose slot is not in use, and
 * by enable_stream. shared_preload_libraries only.
 */
#ifndef SINGLETABLE_STREAM_WORKER_H
#define SINGLETABLE_STREAM_WORKER_H

extern void st_stream_worker_init(void);

/* From the launcher's loop: a worker for each database whose slot is idle */
extern void st_stream_launcher_round(void);

#endif
