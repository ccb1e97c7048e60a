/*
 * guc.h — the settings of singletable (guc.c); their variables are declared
 * with the subsystem that reads them (ttl.h).
 */
#ifndef SINGLETABLE_GUC_H
#define SINGLETABLE_GUC_H

extern void st_guc_init(void);

#endif
