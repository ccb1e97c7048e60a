/*
 * sql_entity_views.c — the SQL functions of entity views:
 * create_entity_views and drop_entity_views (thin wrappers of
 * commands/entity_views.c), and entity_view_trigger, the INSTEAD OF trigger
 * that makes a view writable through the item operations (ops/ops.h):
 *
 *   INSERT  PutItem with attribute_not_exists(<partition key>)
 *   UPDATE  PutItem of the new item with attribute_exists(<partition key>);
 *           when the key fields change, DeleteItem of the old item
 *           (attribute_exists) and PutItem of the new (attribute_not_exists)
 *   DELETE  DeleteItem with attribute_exists(<partition key>)
 *
 * so conditions, TTL, index key checks and capacity apply as for
 * put_item/delete_item. The keys are composed from the field columns (the
 * key columns of the row are ignored); an index's key attributes are set
 * when all of their fields are given, and left out otherwise (sparse).
 * Declared attribute columns set their attribute (NULL removes it); the
 * item column gives the other attributes. The row returned (RETURNING) has
 * the keys and the item written.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type_d.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteHandler.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "catalog/entities.h"
#include "catalog/registry.h"
#include "commands/commands.h"
#include "ops/ops.h"

PG_FUNCTION_INFO_V1(singletable_create_entity_views);
PG_FUNCTION_INFO_V1(singletable_drop_entity_views);
PG_FUNCTION_INFO_V1(singletable_entity_view_trigger);

/* singletable.create_entity_views(table_name, schema) RETURNS SETOF regclass */
Datum
singletable_create_entity_views(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	List	   *oids;
	ListCell   *lc;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	oids = st_create_entity_views(PG_ARGISNULL(0) ? NULL : PG_GETARG_TEXT_PP(0),
								  PG_ARGISNULL(1) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(1)));
	foreach(lc, oids)
	{
		Datum		v = ObjectIdGetDatum(lfirst_oid(lc));
		bool		isnull = false;

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &v, &isnull);
	}
	return (Datum) 0;
}

/* singletable.drop_entity_views(table_name) */
Datum
singletable_drop_entity_views(PG_FUNCTION_ARGS)
{
	st_drop_entity_views(PG_ARGISNULL(0) ? NULL : PG_GETARG_TEXT_PP(0));
	PG_RETURN_VOID();
}

/* ---------------------------------------------------------------------
 * The trigger
 * --------------------------------------------------------------------- */

/* The item table a view reads */
static Oid
view_base_table(Relation view)
{
	Query	   *q = get_view_query(view);
	RangeTblRef *rtr;

	if (list_length(q->jointree->fromlist) != 1 || !IsA(linitial(q->jointree->fromlist), RangeTblRef))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("view \"%s\" is not an entity view of one table", RelationGetRelationName(view))));
	rtr = linitial(q->jointree->fromlist);
	return rt_fetch(rtr->rtindex, q->rtable)->relid;
}

/* A column of the row, by name: its value, or isnull; false when the view has no such column */
static bool
row_column(HeapTuple tup, TupleDesc desc, const char *name, Datum *value, bool *isnull, Oid *type)
{
	int			col = SPI_fnumber(desc, name);

	if (col <= 0)
		return false;
	*value = heap_getattr(tup, col, desc, isnull);
	*type = TupleDescAttr(desc, col - 1)->atttypid;
	return true;
}

/* The text of field part of template t from the row's column of its name, or NULL if it is NULL */
static char *
field_text(HeapTuple tup, TupleDesc desc, const StTemplatePart *part, const char *view)
{
	Datum		v;
	bool		isnull;
	Oid			type;
	char	   *s;

	if (!row_column(tup, desc, part->text, &v, &isnull, &type))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("view \"%s\" has no column \"%s\"; re-create it with singletable.create_entity_views()",
						view, part->text)));
	if (isnull)
		return NULL;
	if (type != st_field_sql_type(part->type))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"%s\" of view \"%s\" is not of type %s; re-create the view with singletable.create_entity_views()",
						part->text, view, format_type_be(st_field_sql_type(part->type)))));
	s = st_field_encode(part->type, part->width, v);
	if (s == NULL || !st_field_value_valid(part->type, part->width, s, strlen(s)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("column \"%s\" of view \"%s\": the value is not a valid %s field", part->text, view,
						st_field_type_text(part->type, part->width)),
				 errdetail("An int is 0 or more and has at most its width's digits; a date or time lies in years 1 to 9999; a field is never empty.")));
	return s;
}

/*
 * The key template t makes of the row's fields, or NULL when a field is
 * NULL (required: an error naming it). The key must read back to the same
 * fields (a string field holding the literal that follows it would not).
 */
static char *
compose_key(HeapTuple tup, TupleDesc desc, StTemplate *t, const char *view, const char *keyname,
			bool required)
{
	char	   *values[ST_TEMPLATE_MAX_FIELDS] = {0};
	char	   *back[ST_TEMPLATE_MAX_FIELDS] = {0};
	char	   *key;

	if (t == NULL)
		return NULL;
	for (int f = 0; f < t->nfields; f++)
	{
		const StTemplatePart *p = st_template_field(t, f);

		values[f] = field_text(tup, desc, p, view);
		if (values[f] == NULL)
		{
			if (required)
				ereport(ERROR,
						(errcode(ERRCODE_NOT_NULL_VIOLATION),
						 errmsg("column \"%s\" of view \"%s\" must not be NULL: it makes the key attribute \"%s\"",
								p->text, view, keyname)));
			return NULL;
		}
	}
	key = st_template_compose(t, values);
	if (!st_template_match(t, key, strlen(key), back))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the fields of view \"%s\" do not make a key of template '%s' for \"%s\"", view, t->source, keyname)));
	for (int f = 0; f < t->nfields; f++)
		if (strcmp(back[f], values[f]) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("column \"%s\" of view \"%s\" holds the text that follows it in template '%s'",
							st_template_field(t, f)->text, view, t->source),
					 errdetail("The key would read back as other field values.")));
	return key;
}

/* Key attribute names and composed values of one row */
typedef struct RowItem
{
	int			n;
	const char *names[2 + 2 * 64];
	char	   *values[2 + 2 * 64]; /* NULL: leave the attribute out */
} RowItem;

static void
push_string(JsonbParseState **st, const char *key, const char *val)
{
	JsonbValue	k,
				v;

	k.type = jbvString;
	k.val.string.val = (char *) key;
	k.val.string.len = strlen(key);
	pushJsonbValue(st, WJB_KEY, &k);
	v.type = jbvString;
	v.val.string.val = (char *) val;
	v.val.string.len = strlen(val);
	pushJsonbValue(st, WJB_VALUE, &v);
}

static bool
name_in(const char *name, int len, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if ((int) strlen(names[i]) == len && memcmp(names[i], name, len) == 0)
			return true;
	return false;
}

/* The item the row describes (stored form) */
static Jsonb *
row_item(StTable *tab, StEntity *e, HeapTuple tup, TupleDesc desc, const char *view, RowItem *keys)
{
	JsonbParseState *st = NULL;
	JsonbValue *res;
	const char *skip[2 + 2 * 64 + 1000];
	int			nskip = 0;
	Datum		v;
	bool		isnull;
	Oid			type;

	for (int i = 0; i < keys->n; i++)
		skip[nskip++] = keys->names[i];
	for (int i = 0; i < e->n_attrs; i++)
		skip[nskip++] = e->attrs[i].name;

	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	/* the item column: every other attribute */
	if (row_column(tup, desc, "item", &v, &isnull, &type) && !isnull)
	{
		Jsonb	   *base = DatumGetJsonbP(v);
		JsonbIterator *it;
		JsonbValue	jv;
		JsonbIteratorToken tok;

		if (!JB_ROOT_IS_OBJECT(base) || JB_ROOT_IS_SCALAR(base))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("column \"item\" of view \"%s\" must be a JSON object", view)));
		it = JsonbIteratorInit(&base->root);
		while ((tok = JsonbIteratorNext(&it, &jv, true)) != WJB_DONE)
		{
			CHECK_FOR_INTERRUPTS();
			if (tok != WJB_KEY)
				continue;
			if (name_in(jv.val.string.val, jv.val.string.len, skip, nskip))
			{
				(void) JsonbIteratorNext(&it, &jv, true);
				continue;
			}
			pushJsonbValue(&st, WJB_KEY, &jv);
			tok = JsonbIteratorNext(&it, &jv, true);
			pushJsonbValue(&st, WJB_VALUE, &jv);
		}
	}
	/* the declared attributes */
	for (int i = 0; i < e->n_attrs; i++)
	{
		StEntityAttr *a = &e->attrs[i];
		JsonbValue	k,
					jv;

		if (!row_column(tup, desc, a->name, &v, &isnull, &type) || isnull)
			continue;
		k.type = jbvString;
		k.val.string.val = a->name;
		k.val.string.len = strlen(a->name);
		if (type == TEXTOID)
		{
			jv.type = jbvString;
			jv.val.string.val = TextDatumGetCString(v);
			jv.val.string.len = strlen(jv.val.string.val);
		}
		else if (type == NUMERICOID)
		{
			jv.type = jbvNumeric;
			jv.val.numeric = DatumGetNumeric(v);
		}
		else if (type == BOOLOID)
		{
			jv.type = jbvBool;
			jv.val.boolean = DatumGetBool(v);
		}
		else if (type == JSONBOID)
		{
			Jsonb	   *j = DatumGetJsonbP(v);

			if (JB_ROOT_IS_SCALAR(j))
				JsonbExtractScalar(&j->root, &jv);
			else
			{
				jv.type = jbvBinary;
				jv.val.binary.data = &j->root;
				jv.val.binary.len = VARSIZE(j) - VARHDRSZ;
			}
		}
		else
			continue;
		pushJsonbValue(&st, WJB_KEY, &k);
		pushJsonbValue(&st, WJB_VALUE, &jv);
	}
	/* the keys */
	for (int i = 0; i < keys->n; i++)
		if (keys->values[i])
			push_string(&st, keys->names[i], keys->values[i]);
	res = pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	return JsonbValueToJsonb(res);
}

/* The keys of the row: the table's (required) and each index's (when all its fields are given) */
static void
row_keys(StTable *tab, StEntity *e, HeapTuple tup, TupleDesc desc, const char *view, RowItem *keys)
{
	keys->n = 0;
	keys->names[keys->n] = tab->pk_name;
	keys->values[keys->n++] = compose_key(tup, desc, e->pk, view, tab->pk_name, true);
	if (tab->sk_name)
	{
		keys->names[keys->n] = tab->sk_name;
		keys->values[keys->n++] = compose_key(tup, desc, e->sk, view, tab->sk_name, true);
	}
	for (int i = 0; i < e->n_indexes; i++)
	{
		StEntityIndex *ix = &e->indexes[i];
		StIndex    *idx = st_table_index(tab, ix->index_name);
		char	   *pk = NULL,
				   *sk = NULL;
		bool		complete;

		if (idx == NULL)
			continue;
		if (ix->pk && !idx->is_lsi)
			pk = compose_key(tup, desc, ix->pk, view, idx->pk[0].name, false);
		if (ix->sk && idx->n_sk == 1)
			sk = compose_key(tup, desc, ix->sk, view, idx->sk[0].name, false);
		complete = (pk != NULL || idx->is_lsi || !ix->pk) && (sk != NULL || idx->n_sk == 0 || !ix->sk);
		if (ix->pk && !idx->is_lsi)
		{
			keys->names[keys->n] = idx->pk[0].name;
			keys->values[keys->n++] = complete ? pk : NULL;
		}
		if (ix->sk && idx->n_sk == 1)
		{
			keys->names[keys->n] = idx->sk[0].name;
			keys->values[keys->n++] = complete ? sk : NULL;
		}
	}
}

/* ExpressionAttributeNames {"#k": "<partition key>"} */
static Jsonb *
pk_names(StTable *tab)
{
	JsonbParseState *st = NULL;

	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	push_string(&st, "#k", tab->pk_name);
	return JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL));
}

static void
put(text *tname, StTable *tab, Jsonb *item, const char *cond)
{
	StPutRequest req;

	memset(&req, 0, sizeof(req));
	req.table_name = tname;
	req.item = item;
	req.expr.condition = cond;
	req.expr.names = pk_names(tab);
	req.return_values = ST_RV_NONE;
	(void) st_op_put(&req);
}

static void
delete_key(text *tname, StTable *tab, HeapTuple tup, TupleDesc desc)
{
	StDeleteRequest req;
	Datum		v;
	bool		isnull;
	Oid			type;

	memset(&req, 0, sizeof(req));
	req.table_name = tname;
	if (!row_column(tup, desc, tab->pk_name, &v, &isnull, &type) || isnull)
		elog(ERROR, "the entity view row has no partition key");
	req.pk.data = TextDatumGetCString(v);
	req.pk.len = strlen(req.pk.data);
	if (tab->sk_name)
	{
		if (!row_column(tup, desc, tab->sk_name, &v, &isnull, &type) || isnull)
			elog(ERROR, "the entity view row has no sort key");
		req.sk.data = TextDatumGetCString(v);
		req.sk.len = strlen(req.sk.data);
	}
	req.expr.condition = "attribute_exists(#k)";
	req.expr.names = pk_names(tab);
	req.return_values = ST_RV_NONE;
	(void) st_op_delete(&req);
}

/* The row returned: the new row with the keys and the item written */
static HeapTuple
result_row(StTable *tab, HeapTuple tup, TupleDesc desc, RowItem *keys, Jsonb *item)
{
	int			natts = desc->natts;
	Datum	   *values = palloc(sizeof(Datum) * natts);
	bool	   *nulls = palloc(sizeof(bool) * natts);
	int			col;

	heap_deform_tuple(tup, desc, values, nulls);
	for (int i = 0; i < (tab->sk_name ? 2 : 1); i++)
	{
		col = SPI_fnumber(desc, keys->names[i]);
		if (col > 0)
		{
			values[col - 1] = CStringGetTextDatum(keys->values[i]);
			nulls[col - 1] = false;
		}
	}
	col = SPI_fnumber(desc, "item");
	if (col > 0)
	{
		values[col - 1] = JsonbPGetDatum(item);
		nulls[col - 1] = false;
	}
	return heap_form_tuple(desc, values, nulls);
}

/*
 * singletable.entity_view_trigger(): INSTEAD OF INSERT OR UPDATE OR DELETE
 * FOR EACH ROW on an entity view; its argument is the entity.
 */
Datum
singletable_entity_view_trigger(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	Relation	view;
	const char *vname;
	TupleDesc	desc;
	Oid			relid;
	text	   *tname;
	StTable    *tab;
	StEntity   *e;
	AclMode		mode;
	char	   *nsp;
	char	   *rel;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_INSTEAD(td->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(td->tg_event) || td->tg_trigger->tgnargs != 1)
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("singletable.entity_view_trigger() must be an INSTEAD OF row trigger with the entity as its argument")));
	view = td->tg_relation;
	vname = RelationGetRelationName(view);
	desc = RelationGetDescr(view);
	relid = view_base_table(view);
	rel = get_rel_name(relid);
	nsp = rel ? get_namespace_name(get_rel_namespace(relid)) : NULL;
	if (rel == NULL || nsp == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("the table of view \"%s\" does not exist", vname)));
	mode = TRIGGER_FIRED_BY_INSERT(td->tg_event) ? ACL_INSERT :
		TRIGGER_FIRED_BY_UPDATE(td->tg_event) ? ACL_UPDATE : ACL_DELETE;
	tab = st_table_open_in(nsp, rel, AccessShareLock, mode);
	e = st_entity_find(tab, td->tg_trigger->tgargs[0]);
	if (e == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("table \"%s\" has no entity \"%s\" (view \"%s\")", rel, td->tg_trigger->tgargs[0], vname),
				 errhint("Re-create the views with singletable.create_entity_views().")));
	tname = st_table_name_text(relid);

	if (TRIGGER_FIRED_BY_DELETE(td->tg_event))
	{
		delete_key(tname, tab, td->tg_trigtuple, desc);
		return PointerGetDatum(td->tg_trigtuple);
	}
	else
	{
		HeapTuple	newtup = TRIGGER_FIRED_BY_INSERT(td->tg_event) ? td->tg_trigtuple : td->tg_newtuple;
		RowItem    *keys = palloc0(sizeof(RowItem));
		Jsonb	   *item;

		row_keys(tab, e, newtup, desc, vname, keys);
		item = row_item(tab, e, newtup, desc, vname, keys);
		if (TRIGGER_FIRED_BY_INSERT(td->tg_event))
			put(tname, tab, item, "attribute_not_exists(#k)");
		else
		{
			Datum		v;
			bool		isnull;
			Oid			type;
			bool		same = true;

			for (int i = 0; i < (tab->sk_name ? 2 : 1); i++)
			{
				if (!row_column(td->tg_trigtuple, desc, keys->names[i], &v, &isnull, &type) || isnull ||
					strcmp(TextDatumGetCString(v), keys->values[i]) != 0)
					same = false;
			}
			if (same)
				put(tname, tab, item, "attribute_exists(#k)");
			else
			{
				delete_key(tname, tab, td->tg_trigtuple, desc);
				put(tname, tab, item, "attribute_not_exists(#k)");
			}
		}
		return PointerGetDatum(result_row(tab, newtup, desc, keys, item));
	}
}
