/*
 * entity_check.c — the write guard (see entity_check.h). Called from
 * st_item_from_val (item.c), the one check every written item passes: a
 * put's item, an update's resulting item, each put of batch_write and each
 * Put and Update of transact_write, from SQL and from the JSON API alike.
 * Batches and transactions check all their items before they write the
 * first (batch.c, transact.c), so an ERROR here writes nothing; deletes are
 * not checked.
 *
 * What is checked, first failure reported:
 *  (a) the keys match an entity's key templates (st_entity_match); if not,
 *  (b) they have an entity's literal text with a field's value of another
 *      type or width (st_template_match_loose): that field is named; else
 *      the closest entity by its templates' type tags is named, with which
 *      of its templates the keys match;
 *  (c) a declared attribute the item has is of its declared type;
 *  (d) an index key attribute the item carries (a String) matches the
 *      entity's template for that index.
 * Messages name the table, the entity, the field and the template, never a
 * key or attribute value: they reach the server log.
 */
#include "postgres.h"

#include <limits.h>

#include "miscadmin.h"

#include "catalog/entities.h"
#include "catalog/entity_suggest.h"
#include "ops/entity_check.h"
#include "utils/errors.h"

int			st_entity_check = ST_CHECK_WARNING;

/* Raises msg at the level of singletable.entity_check */
static void
report(const char *msg)
{
	if (st_entity_check == ST_CHECK_ERROR)
		ereport(ERROR,
				(errcode(ERRCODE_ST_ENTITY_MISMATCH),
				 errmsg("%s", msg),
				 st_errdetail_dynamodb("One or more parameter values were invalid: %s", msg),
				 errhint("Write the item as its entity's templates say, or define its entity with singletable.define_entity; singletable.entity_check = warning reports this without refusing the write.")));
	ereport(WARNING,
			(errcode(ERRCODE_ST_WARNING_ENTITY_MISMATCH),
			 errmsg("%s", msg)));
}

/* "field \"f\" of template T is not a valid TYPE" for field number bad of t */
static char *
bad_field_text(const StTemplate *t, int bad)
{
	const StTemplatePart *f = st_template_field(t, bad);

	return psprintf("field \"%s\" of %s is not a valid %s", f->text, t->source,
					st_field_type_text(f->type, f->width));
}

/* The keys of an entity, loosely: true and the message when a field is of another type */
static bool
check_fields(StTable *tab, StEntity *e, const char *pk, int pklen, const char *sk, int sklen)
{
	int			bad_pk;
	int			bad_sk = -1;

	if (!st_template_match_loose(e->pk, pk, pklen, &bad_pk))
		return false;
	if ((e->sk == NULL) != (sk == NULL))
		return false;
	if (e->sk && !st_template_match_loose(e->sk, sk, sklen, &bad_sk))
		return false;
	if (bad_pk < 0 && bad_sk < 0)
		return false;			/* the loose reading fits, the strict one not: no field to name */
	report(psprintf("item for table \"%s\" has the keys of entity \"%s\" but %s", tab->relname, e->name,
					bad_pk >= 0 ? bad_field_text(e->pk, bad_pk) : bad_field_text(e->sk, bad_sk)));
	return true;
}

/* (a): the keys match no entity: names the closest and how the keys differ from it */
static void
report_no_entity(StTable *tab, const char *pk, int pklen, const char *sk, int sklen)
{
	StEntity   *best = NULL;
	bool		best_pk_matches = false;
	int			best_score = INT_MAX;
	StringInfoData msg;

	for (int i = 0; i < tab->n_entities; i++)
	{
		StEntity   *e = &tab->entities[i];
		bool		pk_matches = st_template_match(e->pk, pk, pklen, NULL);
		int			score = 0;

		CHECK_FOR_INTERRUPTS();
		if (!pk_matches)
			score += e->pk->prefix_len > 0 ? st_tag_distance(e->pk, pk, pklen) : ST_SUGGEST_MAX_BYTES;
		if (e->sk && sk)
			score += e->sk->prefix_len > 0 ? st_tag_distance(e->sk, sk, sklen) : ST_SUGGEST_MAX_BYTES;
		/* an entity whose partition key template matches comes first */
		if (best == NULL || (pk_matches && !best_pk_matches) ||
			(pk_matches == best_pk_matches && score < best_score))
		{
			best = e;
			best_pk_matches = pk_matches;
			best_score = score;
		}
	}
	initStringInfo(&msg);
	appendStringInfo(&msg, "item for table \"%s\" matches no entity; the closest is \"%s\" (%s%s%s), ",
					 tab->relname, best->name, best->pk->source, best->sk ? ", " : "",
					 best->sk ? best->sk->source : "");
	if (best_pk_matches && best->sk && sk)
	{
		appendStringInfoString(&msg, "whose partition key template the item's partition key matches, ");
		if (best->sk->prefix_len > 0 &&
			(sklen < best->sk->prefix_len || memcmp(sk, best->sk->prefix, best->sk->prefix_len) != 0))
			appendStringInfo(&msg, "but its sort key does not begin with '%s'", best->sk->prefix);
		else
			appendStringInfo(&msg, "but not the rest of its sort key template");
	}
	else if (best->pk->prefix_len > 0 &&
			 (pklen < best->pk->prefix_len || memcmp(pk, best->pk->prefix, best->pk->prefix_len) != 0))
		appendStringInfo(&msg, "but the item's partition key does not begin with '%s'", best->pk->prefix);
	else
		appendStringInfo(&msg, "but the item's partition key does not match the rest of its template");
	report(msg.data);
}

/* (c): the declared attributes the item has, of their types; false: one is not */
static bool
check_attributes(StTable *tab, StEntity *e, const StVal *val)
{
	for (int i = 0; i < e->n_attrs; i++)
	{
		StVal	   *v = st_val_map_get(val, e->attrs[i].name, strlen(e->attrs[i].name));
		const char *actual;

		if (v == NULL)
			continue;
		actual = st_val_type_name(v->type);
		if (strcmp(actual, e->attrs[i].type) != 0)
		{
			report(psprintf("attribute \"%s\" of an item of entity \"%s\" in table \"%s\" is of type %s, not %s as the entity declares",
							e->attrs[i].name, e->name, tab->relname, actual, e->attrs[i].type));
			return false;
		}
	}
	return true;
}

/* An index key attribute of the item (a String) against the entity's template t */
static bool
check_index_attr(StTable *tab, StEntity *e, const StIndex *idx, const char *attr,
				 const char *which, const StTemplate *t, const StVal *val)
{
	StVal	   *v;
	int			bad;

	if (t == NULL || attr == NULL)
		return true;
	v = st_val_map_get(val, attr, strlen(attr));
	if (v == NULL || v->type != SV_S)
		return true;
	if (st_template_match(t, v->u.str.data, v->u.str.len, NULL))
		return true;
	if (st_template_match_loose(t, v->u.str.data, v->u.str.len, &bad) && bad >= 0)
		report(psprintf("attribute \"%s\" of an item of entity \"%s\" in table \"%s\" has the form of its %s %s key template, but %s",
						attr, e->name, tab->relname, idx->name, which, bad_field_text(t, bad)));
	else
		report(psprintf("attribute \"%s\" of an item of entity \"%s\" in table \"%s\" does not match its %s %s key template %s",
						attr, e->name, tab->relname, idx->name, which, t->source));
	return false;
}

/* (d): the index key attributes the item carries, against the entity's index templates */
static void
check_index_keys(StTable *tab, StEntity *e, const StVal *val)
{
	for (int i = 0; i < tab->n_indexes; i++)
	{
		const StIndex *idx = &tab->indexes[i];
		StEntityIndex *ix = st_entity_index(e, idx->name);

		if (ix == NULL)
			continue;
		if (!idx->is_lsi &&
			!check_index_attr(tab, e, idx, idx->n_pk == 1 ? idx->pk[0].name : NULL, "partition", ix->pk, val))
			return;
		if (!check_index_attr(tab, e, idx, idx->n_sk == 1 ? idx->sk[0].name : NULL, "sort", ix->sk, val))
			return;
	}
}

void
st_entity_check_item(StTable *tab, const StVal *val, const StKey *pk, const StKey *sk)
{
	const char *pkd = pk->display;
	const char *skd = sk ? sk->display : NULL;
	int			pklen = strlen(pkd);
	int			sklen = skd ? strlen(skd) : 0;
	StEntity   *e;

	if (!st_entity_check_wanted(tab) || (sk && tab->sk_type != ST_KEY_S))
		return;
	e = st_entity_match(tab, pkd, pklen, skd, sklen);
	if (e == NULL)
	{
		for (int i = 0; i < tab->n_entities; i++)
		{
			CHECK_FOR_INTERRUPTS();
			if (check_fields(tab, &tab->entities[i], pkd, pklen, skd, sklen))
				return;
		}
		report_no_entity(tab, pkd, pklen, skd, sklen);
		return;
	}
	if (check_attributes(tab, e, val))
		check_index_keys(tab, e, val);
}
