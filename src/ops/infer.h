/*
 * infer.h — infer_entities: entity definitions proposed from the keys a table
 * holds (key shapes split at the table's delimiter, fields typed by what all
 * their values match), each with the define_entity call that registers it.
 *
 * Design notes: the section on infer.c in README.md of this folder.
 */
#ifndef SINGLETABLE_INFER_H
#define SINGLETABLE_INFER_H

#include "fmgr.h"
#include "nodes/pg_list.h"

/* At most this many distinct key shapes are told apart (a NOTICE says when more were seen) */
#define ST_INFER_MAX_SHAPES 100

/* A key is split into at most this many segments (the last one keeps the rest) */
#define ST_INFER_MAX_SEGMENTS 16

/* One proposed entity */
typedef struct StInferredEntity
{
	char	   *entity;
	char	   *pk_template;
	char	   *sk_template;	/* NULL for a partition-key-only table */
	int64		items;			/* scaled up from a sample */
	char	   *statement;		/* SELECT singletable.define_entity(...); */
} StInferredEntity;

/* The proposals for table name (a List of StInferredEntity *, ordered by templates) */
extern List *st_infer_entities(text *name, bool has_sample, double pct);

#endif
