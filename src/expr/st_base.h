/*
 * st_base.h — the one include that differs between the extension and the
 * stand-alone build of the expression engine (fuzzer): postgres.h in the
 * backend, postgres_fe.h (palloc from libpgcommon) outside it.
 */
#ifndef SINGLETABLE_ST_BASE_H
#define SINGLETABLE_ST_BASE_H

#ifdef ST_FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#endif
