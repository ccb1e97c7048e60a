/*
 * singletable.c — module entry point: one init call per subsystem.
 */
#include "postgres.h"

#include "fmgr.h"

#include "registry.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/* Called once per backend when the library is loaded. */
void
_PG_init(void)
{
	st_registry_init();
}
