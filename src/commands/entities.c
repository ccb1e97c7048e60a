/*
 * entities.c — DDL of entities (commands.h): st_define_entity registers an
 * entity's key templates after checking them against the table and against
 * the table's other entities; st_drop_entity removes one. Behind the SQL
 * functions define_entity and drop_entity (functions/sql_entities.c).
 *
 * The checks, in order (the first error changes nothing):
 *   - the arguments: templates parse, keys are strings, the templates match
 *     the table's keys and its indexes' (a GSI's single S attributes; an
 *     LSI has only a sort key template), a field has one type in all of
 *     the entity's templates, declared attributes have DynamoDB types;
 *   - collisions, an error: for the table's key and for each index both
 *     entities give templates, the two partition key templates can make
 *     the same value and so can the two sort key templates (one literal
 *     prefix is a prefix of the other, or a constant is a key of the other
 *     template): a Query meant for one entity would return the other's items;
 *   - risky designs, a WARNING: a type tag not ended by a delimiter
 *     ('USER{id}'), a delimiter other than the one the table's other
 *     entities use, a sort key field that sorts wrongly as text (an int
 *     without a width, a date or time held as a string).
 *
 * define_entity takes SHARE UPDATE EXCLUSIVE on the table, which conflicts
 * with itself and with no read or write: two definitions of one table
 * check one after the other, each against the rows the other committed
 * (the registry is read in a new snapshot after the lock).
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "catalog/entities.h"
#include "catalog/registry.h"
#include "utils/errors.h"
#include "commands/commands.h"
#include "commands/commands_internal.h"

/* One key position both entities may fill: the table's key, or an index's */
typedef struct KeySlot
{
	const char *what;			/* "the table's key", "index \"GSI1\"" */
	const char *pk_name;		/* the attribute names, for messages */
	const char *sk_name;
	StTemplate *pk;
	StTemplate *sk;
} KeySlot;

/*
 * Whether a value of template a can also be a value of template b, judged
 * as a Query would meet them: two constants are equal, a constant is a key
 * of the other template, or one literal prefix is a prefix of the other.
 */
static bool
templates_overlap(const StTemplate *a, const StTemplate *b)
{
	if (st_template_is_constant(a) && st_template_is_constant(b))
		return strcmp(a->source, b->source) == 0 && a->prefix_len == b->prefix_len &&
			memcmp(a->prefix, b->prefix, a->prefix_len) == 0;
	if (st_template_is_constant(a))
		return st_template_match(b, a->prefix, a->prefix_len, NULL);
	if (st_template_is_constant(b))
		return st_template_match(a, b->prefix, b->prefix_len, NULL);
	{
		int			n = Min(a->prefix_len, b->prefix_len);

		return memcmp(a->prefix, b->prefix, n) == 0;
	}
}

/* Why a and b overlap, for the error's message */
static char *
overlap_reason(const StTemplate *a, const char *aent, const StTemplate *b, const char *bent,
			   const char *keyname)
{
	if (st_template_is_constant(a) && st_template_is_constant(b))
		return psprintf("both have the %s '%s'", keyname, a->source);
	if (st_template_is_constant(a))
		return psprintf("the %s '%s' of \"%s\" is also a key of the template '%s' of \"%s\"",
						keyname, a->prefix, aent, b->source, bent);
	if (st_template_is_constant(b))
		return psprintf("the %s '%s' of \"%s\" is also a key of the template '%s' of \"%s\"",
						keyname, b->prefix, bent, a->source, aent);
	if (a->prefix_len == 0 || b->prefix_len == 0)
	{
		const StTemplate *f = a->prefix_len == 0 ? a : b;

		return psprintf("the %s template '%s' of \"%s\" begins with a field, so no prefix tells its keys from those of \"%s\"",
						keyname, f->source, f == a ? aent : bent, f == a ? bent : aent);
	}
	if (a->prefix_len == b->prefix_len)
		return psprintf("both %s templates begin with '%s', so begins_with(%s, '%s') returns the items of both",
						keyname, a->prefix, keyname, a->prefix);
	{
		const StTemplate *s = a->prefix_len < b->prefix_len ? a : b;
		const StTemplate *l = s == a ? b : a;

		return psprintf("the %s prefix '%s' of \"%s\" is a prefix of '%s' of \"%s\", so begins_with(%s, '%s') returns the items of both",
						keyname, s->prefix, s == a ? aent : bent, l->prefix, l == a ? aent : bent,
						keyname, s->prefix);
	}
}

/* The key slots of entity e on tab: the table's key, then each index it gives templates for */
static int
entity_slots(StTable *tab, StEntity *e, KeySlot *slots)
{
	int			n = 0;

	slots[n].what = "the table's key";
	slots[n].pk_name = tab->pk_name;
	slots[n].sk_name = tab->sk_name ? tab->sk_name : "";
	slots[n].pk = e->pk;
	slots[n].sk = e->sk;
	n++;
	for (int i = 0; i < e->n_indexes; i++)
	{
		StEntityIndex *ix = &e->indexes[i];
		StIndex    *idx = st_table_index(tab, ix->index_name);

		if (idx == NULL)
			continue;
		slots[n].what = psprintf("index \"%s\"", ix->index_name);
		slots[n].pk_name = idx->pk[0].name;
		slots[n].sk_name = idx->n_sk > 0 ? idx->sk[0].name : "";
		slots[n].pk = ix->pk ? ix->pk : e->pk;
		slots[n].sk = ix->sk;
		n++;
	}
	return n;
}

/* Errors when entity e collides with other, on the table's key or an index both use */
static void
check_collision(StTable *tab, StEntity *e, StEntity *other)
{
	KeySlot    *es = palloc(sizeof(KeySlot) * (e->n_indexes + 1));
	KeySlot    *os = palloc(sizeof(KeySlot) * (other->n_indexes + 1));
	int			ne = entity_slots(tab, e, es);
	int			no = entity_slots(tab, other, os);

	for (int i = 0; i < ne; i++)
		for (int j = 0; j < no; j++)
		{
			KeySlot    *a = &es[i];
			KeySlot    *b = &os[j];
			bool		sks;

			if (strcmp(a->what, b->what) != 0)
				continue;
			CHECK_FOR_INTERRUPTS();
			if (!templates_overlap(a->pk, b->pk))
				continue;
			if ((a->sk == NULL) != (b->sk == NULL))
				continue;
			sks = a->sk != NULL;
			if (sks && !templates_overlap(a->sk, b->sk))
				continue;
			ereport(ERROR,
					(errcode(ERRCODE_DUPLICATE_OBJECT),
					 errmsg("entity \"%s\" of table \"%s\" collides with entity \"%s\" on %s",
							e->name, tab->relname, other->name, a->what),
					 errdetail("Their partition key templates '%s' and '%s' can make the same value, and %s.",
							   a->pk->source, b->pk->source,
							   sks ? overlap_reason(a->sk, e->name, b->sk, other->name, a->sk_name)
							   : "the key has no sort key to tell them apart"),
					 errhint("Give each entity its own type tag ended by a delimiter, e.g. 'USER#{userId}' and 'USERGROUP#{groupId}', "
							 "or change entity \"%s\" with singletable.define_entity(..., replace => true).",
							 other->name)));
		}
}

/* The templates of e: its keys', then its indexes'; returns their number (at most max) */
static int
entity_templates(StEntity *e, StTemplate **ts, int max)
{
	int			n = 0;

	ts[n++] = e->pk;
	if (e->sk)
		ts[n++] = e->sk;
	for (int i = 0; i < e->n_indexes && n + 2 <= max; i++)
	{
		if (e->indexes[i].pk)
			ts[n++] = e->indexes[i].pk;
		if (e->indexes[i].sk)
			ts[n++] = e->indexes[i].sk;
	}
	return n;
}

/*
 * Warns (once) when a type tag of e ends with another delimiter than the
 * table's: the one most of the type tags of its entities (e's included)
 * end with.
 */
static void
warn_mixed_delimiters(StTable *tab, StEntity *e, StEntity *others, int nothers)
{
	StTemplate *ts[2 + 2 * 64];
	int			n;
	int			counts[128] = {0};
	char		table_delim = '\0';
	const char *example = NULL;
	const char *example_entity = NULL;

	for (int i = -1; i < nothers; i++)
	{
		StEntity   *x = i < 0 ? e : &others[i];

		if (i >= 0 && strcmp(x->name, e->name) == 0)
			continue;
		n = entity_templates(x, ts, lengthof(ts));
		for (int k = 0; k < n; k++)
		{
			char		d = st_template_delimiter(ts[k]);

			if (d != '\0')
				counts[(unsigned char) d]++;
		}
	}
	for (int c = 1; c < 128; c++)
		if (counts[c] > 0 && (table_delim == '\0' || counts[c] > counts[(unsigned char) table_delim]))
			table_delim = (char) c;
	if (table_delim == '\0')
		return;
	/* a tag of another entity (or of e) that shows the table's delimiter */
	for (int i = 0; i < nothers && example == NULL; i++)
	{
		if (strcmp(others[i].name, e->name) == 0)
			continue;
		n = entity_templates(&others[i], ts, lengthof(ts));
		for (int k = 0; k < n && example == NULL; k++)
			if (st_template_delimiter(ts[k]) == table_delim)
			{
				example = ts[k]->source;
				example_entity = others[i].name;
			}
	}
	n = entity_templates(e, ts, lengthof(ts));
	for (int k = 0; k < n; k++)
	{
		char		d = st_template_delimiter(ts[k]);

		if (d == '\0' || d == table_delim)
			continue;
		ereport(WARNING,
				(errcode(ERRCODE_WARNING),
				 errmsg("entity \"%s\" of table \"%s\" ends the type tag of '%s' with '%c', where the table's tags end with '%c'",
						e->name, tab->relname, ts[k]->source, d, table_delim),
				 example ? errdetail("Entity \"%s\" uses '%c': '%s'.", example_entity, table_delim, example) : 0,
				 errhint("Use one delimiter in a table, so that every type tag ends the same way.")));
		return;
	}
}

/* Whether a field's name says it holds a date or a time ("dueDate", "created_at", "updatedAt") */
static bool
name_says_time(const char *name)
{
	int			len = strlen(name);
	static const char *const suffixes[] = {"date", "Date", "time", "Time", "At", "_at", "timestamp", "Timestamp"};

	for (int i = 0; i < (int) lengthof(suffixes); i++)
	{
		int			sl = strlen(suffixes[i]);

		if (len >= sl && strcmp(name + len - sl, suffixes[i]) == 0)
			return true;
	}
	return false;
}

/* The WARNINGs of template t (what: "sort key template") of entity e */
static void
warn_template(StTable *tab, StEntity *e, StTemplate *t, const char *what, bool sorts)
{
	if (t->nfields > 0 && t->prefix_len > 0 && st_template_delimiter(t) == '\0')
		ereport(WARNING,
				(errcode(ERRCODE_WARNING),
				 errmsg("the type tag '%s' of the %s '%s' of entity \"%s\" of table \"%s\" does not end with a delimiter",
						t->prefix, what, t->source, e->name, tab->relname),
				 errdetail("begins_with(key, '%s') also reaches any other type whose tag begins with '%s'.", t->prefix, t->prefix),
				 errhint("End the tag with the table's delimiter, e.g. '%s#...'.", t->prefix)));
	if (!sorts)
		return;
	for (int i = 0; i < t->nfields; i++)
	{
		const StTemplatePart *f = st_template_field(t, i);

		if (f->type == ST_FIELD_INT && f->width == 0)
			ereport(WARNING,
					(errcode(ERRCODE_WARNING),
					 errmsg("field {%s} of the %s '%s' of entity \"%s\" is an int without a width",
							f->text, what, t->source, e->name),
					 errdetail("Keys sort as text: '10' sorts before '9'."),
					 errhint("Declare it zero-padded, e.g. {%s:int(8)}.", f->text)));
		else if (f->type == ST_FIELD_STRING && name_says_time(f->text))
			ereport(WARNING,
					(errcode(ERRCODE_WARNING),
					 errmsg("field {%s} of the %s '%s' of entity \"%s\" is a string, but its name says it holds a date or a time",
							f->text, what, t->source, e->name),
					 errdetail("Keys sort as text: only ISO-8601 dates and times sort by time."),
					 errhint("Declare it {%s:date} or {%s:timestamp}; the write check then refuses other forms.",
							 f->text, f->text)));
	}
}

/* Records field f of template t in the entity's fields, checking that its type agrees */
static void
check_field_types(StEntity *e, StTemplate **ts, int nts)
{
	for (int a = 0; a < nts; a++)
		for (int i = 0; i < ts[a]->nfields; i++)
		{
			const StTemplatePart *f = st_template_field(ts[a], i);

			for (int b = 0; b <= a; b++)
			{
				int			k = st_template_field_index(ts[b], f->text);
				const StTemplatePart *g;

				if (k < 0 || (b == a && k == i))
					continue;
				g = st_template_field(ts[b], k);
				if (g->type != f->type || g->width != f->width)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("field {%s} of entity \"%s\" is %s in '%s' but %s in '%s'",
									f->text, e->name, st_field_type_text(g->type, g->width), ts[b]->source,
									st_field_type_text(f->type, f->width), ts[a]->source),
							 errhint("A field has one type in all of an entity's templates.")));
			}
		}
}

/* A string member of a JSON object (jbvBinary container), or NULL when absent */
static char *
json_string_member(JsonbContainer *obj, const char *key, const char *what)
{
	JsonbValue	k;
	JsonbValue *v;

	k.type = jbvString;
	k.val.string.val = (char *) key;
	k.val.string.len = strlen(key);
	v = findJsonbValueFromContainer(obj, JB_FOBJECT, &k);
	if (v == NULL || v->type == jbvNull)
		return NULL;
	if (v->type != jbvString)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: \"%s\" must be a string (a template)", what, key)));
	return pnstrdup(v->val.string.val, v->val.string.len);
}

/* Reads the indexes argument into e, checking each against the table's indexes */
static void
read_index_templates(StTable *tab, StEntity *e, Jsonb *indexes)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	int			n;

	if (indexes == NULL)
		return;
	if (!JB_ROOT_IS_OBJECT(indexes) || JB_ROOT_IS_SCALAR(indexes))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("indexes must be a JSON object of index names, e.g. '{\"GSI1\": {\"pk\": \"STATUS#{status}\", \"sk\": \"{dueDate:date}\"}}'")));
	n = JsonContainerSize(&indexes->root);
	e->indexes = palloc0(sizeof(StEntityIndex) * (n + 1));
	it = JsonbIteratorInit(&indexes->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		StEntityIndex *ix;
		StIndex    *idx;
		char	   *name;
		char	   *what;
		JsonbIterator *it2;
		JsonbValue	v2;
		JsonbIteratorToken tok2;

		CHECK_FOR_INTERRUPTS();
		if (tok != WJB_KEY)
			continue;
		name = pnstrdup(v.val.string.val, v.val.string.len);
		tok = JsonbIteratorNext(&it, &v, true);
		idx = st_table_index(tab, name);
		if (idx == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_OBJECT),
					 errmsg("table \"%s\" has no secondary index \"%s\"", tab->relname, name),
					 errhint("Create it with singletable.create_gsi() or create_lsi() first.")));
		if (idx->n_pk != 1 || idx->n_sk > 1 || idx->pk[0].type != ST_KEY_S ||
			(idx->n_sk == 1 && idx->sk[0].type != ST_KEY_S))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("index \"%s\" of table \"%s\" cannot have key templates: its keys are not one String attribute each",
							name, tab->relname)));
		what = psprintf("indexes.%s of entity \"%s\"", name, e->name);
		if (v.type != jbvBinary || !JsonContainerIsObject(v.val.binary.data))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s must be an object {\"pk\": template, \"sk\": template}", what)));
		/* only pk and sk */
		it2 = JsonbIteratorInit(v.val.binary.data);
		while ((tok2 = JsonbIteratorNext(&it2, &v2, true)) != WJB_DONE)
			if (tok2 == WJB_KEY &&
				!((v2.val.string.len == 2 && strncmp(v2.val.string.val, "pk", 2) == 0) ||
				  (v2.val.string.len == 2 && strncmp(v2.val.string.val, "sk", 2) == 0)))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s has the member \"%s\"; it takes \"pk\" and \"sk\" only", what,
								pnstrdup(v2.val.string.val, Min(v2.val.string.len, 64)))));
		ix = &e->indexes[e->n_indexes++];
		ix->index_name = name;
		{
			char	   *pk = json_string_member(v.val.binary.data, "pk", what);
			char	   *sk = json_string_member(v.val.binary.data, "sk", what);

			if (idx->is_lsi && pk)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s gives a partition key template, but local secondary index \"%s\" has the table's partition key",
								what, name),
						 errhint("Give only \"sk\" for a local secondary index.")));
			if (!idx->is_lsi && pk == NULL)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s needs a partition key template \"pk\" (attribute \"%s\")", what, idx->pk[0].name)));
			if ((sk != NULL) != (idx->n_sk == 1))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 idx->n_sk == 1
						 ? errmsg("%s needs a sort key template \"sk\" (attribute \"%s\")", what, idx->sk[0].name)
						 : errmsg("%s gives a sort key template, but index \"%s\" has no sort key", what, name)));
			ix->pk = pk ? st_template_parse(pk, psprintf("the %s partition key template of entity \"%s\"", name, e->name)) : NULL;
			ix->sk = sk ? st_template_parse(sk, psprintf("the %s sort key template of entity \"%s\"", name, e->name)) : NULL;
		}
	}
}

/* Reads the attributes argument into e */
static void
read_attributes(StTable *tab, StEntity *e, Jsonb *attributes)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;

	if (attributes == NULL)
		return;
	if (!JB_ROOT_IS_OBJECT(attributes) || JB_ROOT_IS_SCALAR(attributes))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("attributes must be a JSON object of attribute names and DynamoDB types, e.g. '{\"name\": \"S\", \"amount\": \"N\"}'")));
	e->attrs = palloc0(sizeof(StEntityAttr) * (JsonContainerSize(&attributes->root) + 1));
	it = JsonbIteratorInit(&attributes->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		StEntityAttr *a;

		CHECK_FOR_INTERRUPTS();
		if (tok != WJB_KEY)
			continue;
		a = &e->attrs[e->n_attrs++];
		a->name = pnstrdup(v.val.string.val, v.val.string.len);
		if (v.val.string.len < 1 || v.val.string.len > 255)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("attribute names of entity \"%s\" must be 1 to 255 bytes long", e->name)));
		if (strcmp(a->name, tab->pk_name) == 0 || (tab->sk_name && strcmp(a->name, tab->sk_name) == 0))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("attribute \"%s\" of entity \"%s\" is a key attribute of table \"%s\"; its template describes it",
							a->name, e->name, tab->relname)));
		tok = JsonbIteratorNext(&it, &v, true);
		if (v.type != jbvString)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the type of attribute \"%s\" of entity \"%s\" must be a string", a->name, e->name),
					 errhint("Types are DynamoDB's: S, N, B, BOOL, NULL, M, L, SS, NS, BS.")));
		a->type = pnstrdup(v.val.string.val, v.val.string.len);
		if (!st_entity_attr_type_valid(a->type))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("attribute \"%s\" of entity \"%s\" has the unknown type \"%s\"", a->name, e->name,
							pnstrdup(a->type, Min(strlen(a->type), 16))),
					 errhint("Types are DynamoDB's: S, N, B, BOOL, NULL, M, L, SS, NS, BS.")));
	}
}

/* The entity's index templates as the registry's jsonb */
static Datum
index_templates_jsonb(Jsonb *indexes)
{
	return indexes ? JsonbPGetDatum(indexes) : DirectFunctionCall1(jsonb_in, CStringGetDatum("{}"));
}

void
st_define_entity(const StDefineEntityRequest *req)
{
	const char *name = st_ddl_required(req->entity, "entity");
	const char *pk = st_ddl_required(req->pk, "pk");
	int			namelen = strlen(name);
	StTable    *tab;
	StEntity	e;
	StEntity   *others;
	int			nothers;
	bool		exists = false;
	StTemplate *ts[2 + 2 * 64];
	int			nts = 0;

	if (namelen < 1 || namelen > 255)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("entity must be 1 to 255 bytes long, not %d", namelen)));
	if (req->indexes && JB_ROOT_COUNT(req->indexes) > 64)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("indexes names %d indexes, more than a table can have (%d)", (int) JB_ROOT_COUNT(req->indexes), 64)));
	if (req->attributes && JB_ROOT_COUNT(req->attributes) > 1000)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("attributes declares %d attributes, more than the limit of 1000", (int) JB_ROOT_COUNT(req->attributes))));

	memset(&e, 0, sizeof(e));
	e.name = pstrdup(name);
	/* the templates (at most ST_TEMPLATE_MAX_BYTES each) before any lock */
	e.pk = st_template_parse(pk, psprintf("the partition key template of entity \"%s\"", name));
	if (req->sk)
		e.sk = st_template_parse(req->sk, psprintf("the sort key template of entity \"%s\"", name));
	SPI_connect();
	/* ownership before the lock; SHARE UPDATE EXCLUSIVE: definitions one at a time */
	tab = st_table_open(req->table_name, ShareUpdateExclusiveLock, ST_ACL_OWNER);
	if (tab->pk_type != ST_KEY_S || (tab->sk_name && tab->sk_type != ST_KEY_S))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("table \"%s\" cannot have entities: its keys are not Strings", tab->relname),
				 errdetail("Key templates describe String keys.")));
	if (tab->sk_name && req->sk == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("table \"%s\" has the sort key \"%s\": give entity \"%s\" a sort key template, sk => ...",
						tab->relname, tab->sk_name, name)));
	if (tab->sk_name == NULL && req->sk != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("table \"%s\" has no sort key, so entity \"%s\" takes no sort key template", tab->relname, name)));
	read_index_templates(tab, &e, req->indexes);
	read_attributes(tab, &e, req->attributes);

	nts = entity_templates(&e, ts, lengthof(ts));
	check_field_types(&e, ts, nts);
	for (int i = 0; i < e.n_attrs; i++)
		for (int k = 0; k < nts; k++)
			if (st_template_field_index(ts[k], e.attrs[i].name) >= 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("attribute \"%s\" of entity \"%s\" is also a field of its template '%s'",
								e.attrs[i].name, name, ts[k]->source),
						 errhint("A field's type is its template's; declare only the other attributes.")));

	/* the other entities, as committed up to the lock */
	nothers = st_entities_read(tab, CurrentMemoryContext, false, &others);
	for (int i = 0; i < nothers; i++)
	{
		if (strcmp(others[i].name, name) == 0)
		{
			exists = true;
			continue;
		}
		check_collision(tab, &e, &others[i]);
	}
	if (exists && !req->replace)
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_OBJECT),
				 errmsg("entity \"%s\" of table \"%s\" already exists", name, tab->relname),
				 errhint("Pass replace => true to change it, or drop it with singletable.drop_entity().")));

	/* warnings: the design is legal but risky */
	warn_template(tab, &e, e.pk, "partition key template", false);
	if (e.sk)
		warn_template(tab, &e, e.sk, "sort key template", true);
	for (int i = 0; i < e.n_indexes; i++)
	{
		if (e.indexes[i].pk)
			warn_template(tab, &e, e.indexes[i].pk, psprintf("%s partition key template", e.indexes[i].index_name), false);
		if (e.indexes[i].sk)
			warn_template(tab, &e, e.indexes[i].sk, psprintf("%s sort key template", e.indexes[i].index_name), true);
	}
	warn_mixed_delimiters(tab, &e, others, nothers);

	{
		Oid			argtypes[7] = {OIDOID, TEXTOID, TEXTOID, TEXTOID, JSONBOID, JSONBOID, BOOLOID};
		Datum		values[7] = {ObjectIdGetDatum(tab->relid), CStringGetTextDatum(name), CStringGetTextDatum(pk),
			req->sk ? CStringGetTextDatum(req->sk) : (Datum) 0, index_templates_jsonb(req->indexes),
			req->attributes ? JsonbPGetDatum(req->attributes) : DirectFunctionCall1(jsonb_in, CStringGetDatum("{}")),
		BoolGetDatum(exists)};
		char		nulls[7] = {' ', ' ', ' ', req->sk ? ' ' : 'n', ' ', ' ', ' '};

		st_registry_execute_as_owner("entities", exists
									 ? "UPDATE " ST_ENTITY_REGISTRY " SET pk_template = $3, sk_template = $4,"
									 " index_templates = $5, attributes = $6, created_at = pg_catalog.now()"
									 " WHERE table_name OPERATOR(pg_catalog.=) $1::pg_catalog.regclass"
									 " AND entity OPERATOR(pg_catalog.=) $2 AND $7"
									 : "INSERT INTO " ST_ENTITY_REGISTRY " (table_name, entity, pk_template, sk_template,"
									 " index_templates, attributes) SELECT $1::pg_catalog.regclass, $2, $3, $4, $5, $6"
									 " WHERE NOT $7",
									 7, argtypes, values, nulls);
	}
	CacheInvalidateRelcacheByRelid(tab->relid);
	/* the table's entity views, if it has any, follow */
	st_entity_views_refresh(tab);
	SPI_finish();
}

void
st_drop_entity(text *table_name, const char *entity)
{
	const char *name = st_ddl_required(entity, "entity");
	StTable    *tab;
	StEntity   *ents;
	int			n;
	bool		found = false;

	SPI_connect();
	tab = st_table_open(table_name, ShareUpdateExclusiveLock, ST_ACL_OWNER);
	n = st_entities_read(tab, CurrentMemoryContext, false, &ents);
	for (int i = 0; i < n; i++)
		if (strcmp(ents[i].name, name) == 0)
			found = true;
	if (!found)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("table \"%s\" has no entity \"%s\"", tab->relname, name)));
	{
		Oid			argtypes[2] = {OIDOID, TEXTOID};
		Datum		values[2] = {ObjectIdGetDatum(tab->relid), CStringGetTextDatum(name)};

		st_registry_execute_as_owner("entities", "DELETE FROM " ST_ENTITY_REGISTRY
									 " WHERE table_name OPERATOR(pg_catalog.=) $1::pg_catalog.regclass"
									 " AND entity OPERATOR(pg_catalog.=) $2", 2, argtypes, values, NULL);
	}
	CacheInvalidateRelcacheByRelid(tab->relid);
	/* the table's entity views, if it has any, follow */
	st_entity_views_refresh(tab);
	SPI_finish();
}
