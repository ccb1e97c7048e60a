/*
 * st_base.h — what differs between the extension and the stand-alone build
 * of the expression engine (fuzzer, built with -DST_FRONTEND): postgres.h in
 * the backend, postgres_fe.h (palloc from libpgcommon) outside it; and
 * ST_CHECK_INTERRUPTS(), which lets loops over user input be cancelled in
 * the backend and is a no-op in the fuzzer, which has no interrupts; and
 * ST_CHECK_STACK_DEPTH(), the backend's guard of recursion (a no-op there:
 * the parser's own depth limit bounds its recursion).
 */
#ifndef SINGLETABLE_ST_BASE_H
#define SINGLETABLE_ST_BASE_H

#ifdef ST_FRONTEND
#include "postgres_fe.h"
#define ST_CHECK_INTERRUPTS() ((void) 0)
#define ST_CHECK_STACK_DEPTH() ((void) 0)
#else
#include "postgres.h"
#include "miscadmin.h"
#define ST_CHECK_INTERRUPTS() CHECK_FOR_INTERRUPTS()
#define ST_CHECK_STACK_DEPTH() check_stack_depth()
#endif

#endif
