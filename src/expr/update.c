/*
 * update.c — applying an update expression to an item.
 *
 * All right-hand sides are evaluated against the old item first (DynamoDB
 * applies an update as if to a snapshot), then the actions are applied to a
 * copy: SETs (list appends in index order), ADDs and DELETEs in place, and
 * last every removal (REMOVE, and a DELETE that empties its set) from the
 * highest list index down, so that every index refers to the old list.
 */
#include "st_base.h"

#include "expr.h"

#define INVALID_PATH_DETAIL "The document path provided in the update expression is invalid for update"
#define BAD_TYPE_DETAIL "An operand in the update expression has an incorrect data type"

static void
bad_path(const StPath *path)
{
	st_expr_error(ST_ERR_RUNTIME, INVALID_PATH_DETAIL,
				  "document path [%s] of the update expression does not exist in the item or is not a map or list where it needs one",
				  st_path_to_string(path));
}

static void
bad_type(const StPath *path, const char *what)
{
	st_expr_error(ST_ERR_RUNTIME, BAD_TYPE_DETAIL,
				  "%s for [%s] has an incorrect data type", what, st_path_to_string(path));
}

/* Evaluates a SET right-hand side against the old item. */
static StVal *
eval_set_value(const StNode *n, const StVal *old, const StPath *target)
{
	switch (n->kind)
	{
		case SN_VALUE:
			return (StVal *) n->value;
		case SN_PATH:
			{
				StVal	   *v = st_path_get(old, n->path);

				if (v == NULL)
					st_expr_error(ST_ERR_RUNTIME,
								  "The provided expression refers to an attribute that does not exist in the item",
								  "update expression reads [%s], which does not exist in the item",
								  st_path_to_string(n->path));
				return v;
			}
		case SN_IF_NOT_EXISTS:
			{
				StVal	   *v = st_path_get(old, n->args[0]->path);

				return v ? v : eval_set_value(n->args[1], old, target);
			}
		case SN_LIST_APPEND:
			{
				StVal	   *a = eval_set_value(n->args[0], old, target);
				StVal	   *b = eval_set_value(n->args[1], old, target);
				StVal	   *r;

				if (a->type != SV_L || b->type != SV_L)
					bad_type(target, "an operand of list_append");
				r = palloc0(sizeof(StVal));
				r->type = SV_L;
				r->u.list.n = a->u.list.n + b->u.list.n;
				r->u.list.elems = palloc(sizeof(StVal *) * Max(r->u.list.n, 1));
				memcpy(r->u.list.elems, a->u.list.elems, sizeof(StVal *) * a->u.list.n);
				memcpy(r->u.list.elems + a->u.list.n, b->u.list.elems, sizeof(StVal *) * b->u.list.n);
				return r;
			}
		case SN_PLUS:
		case SN_MINUS:
			{
				StVal	   *a = eval_set_value(n->args[0], old, target);
				StVal	   *b = eval_set_value(n->args[1], old, target);
				StNumber	num;
				StNumberError err;

				if (a->type != SV_N || b->type != SV_N)
					bad_type(target, n->kind == SN_PLUS ? "an operand of +" : "an operand of -");
				err = st_number_add(a->u.str.data, a->u.str.len, b->u.str.data, b->u.str.len,
									n->kind == SN_MINUS, &num);
				if (err != ST_NUM_OK)
					st_expr_error(ST_ERR_NUMBER_RANGE, st_number_error_text(err),
								  "the result of %s for [%s] is out of DynamoDB's number range",
								  n->kind == SN_PLUS ? "+" : "-", st_path_to_string(target));
				return st_val_make_str(SV_N, num.canonical, strlen(num.canonical));
			}
		default:
			st_expr_error(ST_ERR_VALIDATION, NULL, "unexpected update operand kind %d", n->kind);
	}
	return NULL;
}

/* The container holding the last element of path (creating nothing), or NULL. */
static StVal *
parent_of(StVal *item, const StPath *path)
{
	StPath		prefix = *path;

	prefix.n = path->n - 1;
	return st_path_get(item, &prefix);
}

/*
 * The map or list that holds the last element of path. Raises DynamoDB's
 * invalid-path error when path cannot exist in item: its parent is missing,
 * or is not a list (for an index) or a map (for a name).
 */
static StVal *
existing_parent(StVal *item, const StPath *path)
{
	StVal	   *parent = parent_of(item, path);

	if (parent == NULL || parent->type != (path->elems[path->n - 1].is_index ? SV_L : SV_M))
		bad_path(path);
	return parent;
}

/* Puts v at path: the parent must exist and be a map (name) or list (index). */
static void
set_path(StVal *item, const StPath *path, StVal *v)
{
	StVal	   *parent = existing_parent(item, path);
	const StPathElem *last = &path->elems[path->n - 1];

	if (last->is_index)
	{
		if (last->index < parent->u.list.n)
			parent->u.list.elems[last->index] = v;
		else
		{
			/* an index past the end appends */
			parent->u.list.elems = parent->u.list.n == 0 ?
				palloc(sizeof(StVal *)) :
				repalloc(parent->u.list.elems, sizeof(StVal *) * (parent->u.list.n + 1));
			parent->u.list.elems[parent->u.list.n++] = v;
		}
	}
	else
		st_val_map_put(parent, last->name, last->namelen, v);
}

/*
 * Removes the element at path; a missing attribute, map key or list index
 * is a no-op, a path that cannot exist is an error.
 */
static void
remove_path(StVal *item, const StPath *path)
{
	StVal	   *parent = existing_parent(item, path);
	const StPathElem *last = &path->elems[path->n - 1];

	if (last->is_index)
	{
		if (last->index < parent->u.list.n)
		{
			memmove(&parent->u.list.elems[last->index], &parent->u.list.elems[last->index + 1],
					sizeof(StVal *) * (parent->u.list.n - last->index - 1));
			parent->u.list.n--;
		}
	}
	else
		st_val_map_remove(parent, last->name, last->namelen);
}

/* Union (add) or difference of two sets of the same type, as a new set. */
static StVal *
set_combine(const StVal *a, const StVal *b, bool add)
{
	StVal	   *r = palloc0(sizeof(StVal));
	int			n = 0,
				i = 0,
				j = 0;

	/* sets are kept sorted and without duplicates: merge them in one pass */
	r->type = a->type;
	r->u.list.elems = palloc(sizeof(StVal *) * (a->u.list.n + b->u.list.n + 1));
	while (i < a->u.list.n || j < b->u.list.n)
	{
		int			c;

		ST_CHECK_INTERRUPTS();
		if (i == a->u.list.n)
			c = 1;
		else if (j == b->u.list.n)
			c = -1;
		else
			c = st_val_compare(a->u.list.elems[i], b->u.list.elems[j]);
		if (c < 0)
			r->u.list.elems[n++] = a->u.list.elems[i++];
		else if (c > 0)
		{
			if (add)
				r->u.list.elems[n++] = b->u.list.elems[j];
			j++;
		}
		else
		{
			if (add)
				r->u.list.elems[n++] = a->u.list.elems[i];
			i++;
			j++;
		}
	}
	r->u.list.n = n;
	return r;
}

/*
 * The order of two paths, element by element. List indexes sort ascending,
 * or descending with desc_index. Equal paths compare 0; paths of one update
 * never are (the parser rejects overlapping ones).
 */
static int
path_order(const StPath *x, const StPath *y, bool desc_index)
{
	for (int i = 0; i < Min(x->n, y->n); i++)
	{
		const StPathElem *ex = &x->elems[i];
		const StPathElem *ey = &y->elems[i];
		int			c;

		if (ex->is_index != ey->is_index)
			return ex->is_index ? -1 : 1;
		if (ex->is_index)
		{
			if (ex->index == ey->index)
				continue;
			c = ex->index < ey->index ? -1 : 1;
			return desc_index ? -c : c;
		}
		c = memcmp(ex->name, ey->name, Min(ex->namelen, ey->namelen));
		if (c == 0)
			c = ex->namelen - ey->namelen;
		if (c != 0)
			return c;
	}
	return x->n - y->n;
}

/*
 * The order of actions: by kind, then by path (a total order, as qsort
 * needs), list indexes ascending so that SETs past the end append in order.
 */
static int
action_order(const void *a, const void *b)
{
	const StUpdateAction *x = *(const StUpdateAction *const *) a;
	const StUpdateAction *y = *(const StUpdateAction *const *) b;

	if (x->kind != y->kind)
		return x->kind - y->kind;
	return path_order(x->path, y->path, false);
}

/*
 * The order of removals: list indexes descending, so that removing an
 * element never shifts one that another removal still refers to.
 */
static int
removal_order(const void *a, const void *b)
{
	return path_order(*(const StPath *const *) a, *(const StPath *const *) b, true);
}

/*
 * Applies upd to item (an M; empty when the item does not exist) and returns
 * the new item. The old item is not modified.
 */
StVal *
st_apply_update(const StUpdate *upd, const StVal *item)
{
	StVal	  **set_values = palloc0(sizeof(StVal *) * Max(upd->n, 1));
	const StUpdateAction **order = palloc(sizeof(StUpdateAction *) * Max(upd->n, 1));
	const StPath **removals = palloc(sizeof(StPath *) * Max(upd->n, 1));
	int			nremovals = 0;
	StVal	   *result;

	/* every right-hand side reads the old item */
	for (int i = 0; i < upd->n; i++)
		if (upd->actions[i].kind == SU_SET)
			set_values[i] = eval_set_value(upd->actions[i].value, item, upd->actions[i].path);

	result = st_val_copy(item);
	for (int i = 0; i < upd->n; i++)
		order[i] = &upd->actions[i];
	qsort(order, upd->n, sizeof(StUpdateAction *), action_order);

	for (int k = 0; k < upd->n; k++)
	{
		const StUpdateAction *a = order[k];
		const StPath *path = a->path;

		switch (a->kind)
		{
			case SU_SET:
				set_path(result, path, set_values[a - upd->actions]);
				break;
			case SU_REMOVE:
				removals[nremovals++] = path;
				break;
			case SU_ADD:
				{
					const StVal *v = a->value->value;
					StVal	   *cur = st_path_get(result, path);

					if (cur == NULL)
						set_path(result, path, (StVal *) v);
					else if (v->type == SV_N && cur->type == SV_N)
					{
						StNumber	num;
						StNumberError err = st_number_add(cur->u.str.data, cur->u.str.len,
														  v->u.str.data, v->u.str.len, false, &num);

						if (err != ST_NUM_OK)
							st_expr_error(ST_ERR_NUMBER_RANGE, st_number_error_text(err),
										  "ADD to [%s] gives a number out of DynamoDB's range",
										  st_path_to_string(path));
						set_path(result, path, st_val_make_str(SV_N, num.canonical, strlen(num.canonical)));
					}
					else if (st_val_is_set(v->type) && cur->type == v->type)
						set_path(result, path, set_combine(cur, v, true));
					else
						bad_type(path, psprintf("ADD of a %s to a %s", st_val_type_name(v->type),
												st_val_type_name(cur->type)));
					break;
				}
			case SU_DELETE:
				{
					const StVal *v = a->value->value;
					StVal	   *cur = st_path_get(result, path);

					if (cur == NULL)
					{
						/* nothing to delete from, but the path must be able to exist */
						existing_parent(result, path);
						break;
					}
					if (cur->type != v->type)
						bad_type(path, psprintf("DELETE of a %s from a %s", st_val_type_name(v->type),
												st_val_type_name(cur->type)));
					cur = set_combine(cur, v, false);
					if (cur->u.list.n == 0)
						removals[nremovals++] = path;
					else
						set_path(result, path, cur);
					break;
				}
		}
	}

	qsort(removals, nremovals, sizeof(StPath *), removal_order);
	for (int k = 0; k < nremovals; k++)
		remove_path(result, removals[k]);
	return result;
}
