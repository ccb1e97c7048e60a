/*
 * write_internal.h — the steps of a read-check-write (write.c) that the
 * writes of a transaction (transact.c) take too: the statement parameters
 * of a key, the parsed condition and update, whether a condition holds for
 * the locked item, the item an update makes of it, and the write of a
 * locked item. So a put, update or delete checks and writes exactly as the
 * same action of a transaction does. Batch writes (batch.c) take one step
 * too: a constraint's error raised without the failing row. Internal to the
 * operations layer; other subsystems use ops.h.
 *
 * Every function here runs inside the caller's SPI connection.
 *
 * Include after postgres.h.
 */
#ifndef SINGLETABLE_WRITE_INTERNAL_H
#define SINGLETABLE_WRITE_INTERNAL_H

#include "executor/spi.h"
#include "utils/jsonb.h"

#include "expr/expr.h"
#include "ops/item.h"
#include "ops/ops.h"

/* The statement parameters $1 pk, $2 sk (NULL without a sort key), $3 item (NULL) */
extern void st_write_key_params(StTable *tab, const StKey *pk, const StKey *sk, Datum *values,
								char *nulls);

/* The parsed condition of a put or delete, or NULL; names/vals checked for use */
extern StNode *st_write_parse_condition(StTable *tab, const StExprText *expr);
extern void st_expr_members_error(bool names, const char *null_exprs) pg_attribute_noreturn();

/* The parsed update expression, its condition in *cond (NULL: none) */
extern StUpdate *st_write_parse_update(StTable *tab, const char *update, const StExprText *expr,
									   StNode **cond);

/* Whether cond (NULL: none) holds for the locked current item (NULL: none) */
extern bool st_write_condition_holds(StTable *tab, const StNode *cond, Jsonb *current);

/*
 * The item update upd makes of the locked current item old (NULL: none) of
 * key pk/sk, in *item and *newval; false when it writes nothing. Raises the
 * errors of the update on this item.
 */
extern bool st_write_update_item(StTable *tab, const StUpdate *upd, const StKey *pk,
								 const StKey *sk, Jsonb *old, StItem *item, StVal **newval);

/*
 * Writes the item in values[2] after its current version was locked: UPDATE
 * when there was one (exists), else INSERT ... ON CONFLICT DO NOTHING.
 * false: the INSERT lost a race with a concurrent insert of the key (now
 * committed): lock and check that item, then call again with attempt + 1.
 */
extern bool st_write_locked(StTable *tab, Datum *values, const char *nulls, bool exists,
							int attempt);

/* Runs a kept plan that writes; a constraint's error without the failing row (item content) */
extern void st_write_run_plan(SPIPlanPtr plan, Datum *values, const char *nulls, int expected);

/*
 * In the PG_CATCH of a statement that writes items (cxt: the memory context
 * of its PG_TRY): raises the error again, a constraint's without the failing
 * row. Batch writes (batch.c) run their statements inside it too.
 */
extern void st_write_rethrow_hiding_row(MemoryContext cxt) pg_attribute_noreturn();

#endif
