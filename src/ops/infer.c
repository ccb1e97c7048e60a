/*
 * infer.c — infer_entities: entity definitions proposed from the keys of a
 * table. Every key is split at the table's delimiter into segments; a
 * segment is a type tag (literal text of the template) or a value (a field);
 * keys with the same sequence of tags and values are one shape, one proposed
 * entity, whose fields are typed by what all their values match.
 *
 * Design notes: the section on infer.c in README.md of this folder.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "catalog/registry.h"
#include "format/template.h"
#include "ops/infer.h"
#include "ops/inventory.h"

/* The widest int(N) a template takes */
#define ST_INFER_MAX_INT_WIDTH 20

/* Rows fetched from the cursor at a time; the first batch also picks the delimiter and style */
#define FETCH_ROWS 10000

/* A tag is at most this long (as a constant key, ST_KEY_CONSTANT_MAX) */
#define TAG_MAX ST_KEY_CONSTANT_MAX

/* A shape's hash key: each key's tags and '*' for values, joined by the delimiter */
#define SHAPE_KEY_LEN (2 * ST_INFER_MAX_SEGMENTS * (TAG_MAX + 1) + 2)

/* What every value of one field matched so far */
typedef struct TypeFlags
{
	bool		seen;
	bool		digits;			/* only ASCII digits */
	int			width;			/* their common length, -1 when they differ */
	bool		lead_zero;		/* one of them (digits, longer than 1) starts with 0 */
	bool		date;			/* YYYY-MM-DD */
	bool		ts;				/* ISO-8601 date and time */
	bool		uuid;
} TypeFlags;

/* One segment position of a key of a shape */
typedef struct SegInfo
{
	bool		is_tag;
	char		tag[TAG_MAX + 1];	/* the tag's text */
	TypeFlags	whole;			/* a value: what it matched */
	/* a value in the lower-case style: a common "name_" prefix (ElectroDB's attribute_value) */
	bool		pre_ok;
	int			prelen;
	char		pre[TAG_MAX + 1];
	TypeFlags	rest;			/* what follows that prefix */
} SegInfo;

typedef struct Shape
{
	char		key[SHAPE_KEY_LEN];	/* hash key */
	int64		items;
	int			nseg[2];		/* [0] partition key, [1] sort key */
	SegInfo		seg[2][ST_INFER_MAX_SEGMENTS];
	/* filled when the proposal is made */
	char	   *tmpl[2];
	char	   *pk_tags;
	char	   *sk_tags;
	bool		sk_has_tags;
	bool		sk_has_values;
	bool		sk_electrodb;
} Shape;

/* How the keys of the table are written */
typedef struct Style
{
	char		delim;			/* '\0': no delimiter in the first batch */
	bool		upper;			/* tags are upper case (USER#42), else any case (user#42) */
} Style;

/* ---- segments ---- */

static bool
is_letter(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Letters and underscores, or ElectroDB's $name_1: what a type tag is made of */
static bool
tag_like(const char *s, int len)
{
	int			i;
	bool		letter = false;

	if (len < 1 || len > TAG_MAX)
		return false;
	if (s[0] == '$')
	{
		for (i = 1; i < len; i++)
			if (!(is_letter(s[i]) || is_digit(s[i]) || s[i] == '_'))
				return false;
		return len > 1;
	}
	for (i = 0; i < len; i++)
	{
		if (is_letter(s[i]))
			letter = true;
		else if (s[i] != '_')
			return false;
	}
	return letter;
}

static bool
has_lower(const char *s, int len)
{
	int			i;

	for (i = 0; i < len; i++)
		if (s[i] >= 'a' && s[i] <= 'z')
			return true;
	return false;
}

/*
 * Is segment s a tag? Upper-case style: every tag-like segment without a
 * lower-case letter (USER, SOURCE#FOLDER, PROFILE), so a value must not
 * look like one; any case: a tag-like segment that does not follow a tag
 * (tags and values alternate: org#acme#user#42).
 */
static bool
is_tag(const Style *st, const char *s, int len, bool prev_tag)
{
	if (!tag_like(s, len))
		return false;
	if (st->upper)
		return !has_lower(s, len);
	return !prev_tag;
}

static void
type_add(TypeFlags *f, const char *s, int len)
{
	bool		digits = len > 0;
	int			i;

	for (i = 0; i < len && digits; i++)
		digits = is_digit(s[i]);
	if (digits && len > 1 && s[0] == '0')
		f->lead_zero = true;
	if (!f->seen)
	{
		f->seen = true;
		f->digits = digits;
		f->width = len;
		f->date = st_field_value_valid(ST_FIELD_DATE, 0, s, len);
		f->ts = st_field_value_valid(ST_FIELD_TIMESTAMP, 0, s, len);
		f->uuid = st_field_value_valid(ST_FIELD_UUID, 0, s, len);
		return;
	}
	f->digits &= digits;
	if (f->width != len)
		f->width = -1;
	if (f->date)
		f->date = st_field_value_valid(ST_FIELD_DATE, 0, s, len);
	if (f->ts)
		f->ts = st_field_value_valid(ST_FIELD_TIMESTAMP, 0, s, len);
	if (f->uuid)
		f->uuid = st_field_value_valid(ST_FIELD_UUID, 0, s, len);
}

/* The template type of a field whose values matched f; NULL: string */
static char *
type_name(const TypeFlags *f)
{
	if (f->uuid)
		return "uuid";
	if (f->ts)
		return "timestamp";
	if (f->date)
		return "date";
	if (f->digits)
		return f->width > 1 && f->width <= ST_INFER_MAX_INT_WIDTH && f->lead_zero ?
			psprintf("int(%d)", f->width) : "int";
	return NULL;
}

/* The length of value s's "name_" prefix (lower-case letters and digits, then '_'), or 0 */
static int
name_prefix(const char *s, int len)
{
	int			i;

	if (len < 3 || !(s[0] >= 'a' && s[0] <= 'z'))
		return 0;
	for (i = 1; i < len && i < TAG_MAX; i++)
	{
		if (s[i] == '_')
			return i + 1 < len ? i + 1 : 0;
		if (!((s[i] >= 'a' && s[i] <= 'z') || is_digit(s[i])))
			return 0;
	}
	return 0;
}

/* ---- keys ---- */

/* The segments of key s: their starts and lengths; returns how many */
static int
split_key(const Style *st, const char *s, int len, int *start, int *seglen)
{
	int			n = 0;
	int			b = 0;
	int			i;

	for (i = 0; i < len && n < ST_INFER_MAX_SEGMENTS - 1; i++)
	{
		if (st->delim != '\0' && s[i] == st->delim)
		{
			start[n] = b;
			seglen[n] = i - b;
			n++;
			b = i + 1;
		}
	}
	start[n] = b;
	seglen[n] = len - b;
	return n + 1;
}

/* Appends key s's shape to buf: its tags, '*' for each value; marks tags in tags[] */
static void
shape_of(const Style *st, const char *s, int len, StringInfo buf, int *nseg, int *start,
		 int *seglen, bool *tags)
{
	int			i;

	*nseg = split_key(st, s, len, start, seglen);
	for (i = 0; i < *nseg; i++)
	{
		tags[i] = is_tag(st, s + start[i], seglen[i], i > 0 && tags[i - 1]);
		if (i > 0)
			appendStringInfoChar(buf, st->delim);
		if (tags[i])
			appendBinaryStringInfo(buf, s + start[i], seglen[i]);
		else
			appendStringInfoChar(buf, '*');
	}
}

/* Folds key s (shape already known) into the statistics of its segments */
static void
key_add(const Style *st, SegInfo *seg, const char *s, int nseg, int *start, int *seglen,
		bool *tags, bool first)
{
	int			i;

	for (i = 0; i < nseg; i++)
	{
		const char *v = s + start[i];
		int			vlen = seglen[i];
		int			p;

		CHECK_FOR_INTERRUPTS();
		if (first)
		{
			seg[i].is_tag = tags[i];
			if (tags[i])
				memcpy(seg[i].tag, v, vlen);
		}
		if (tags[i])
			continue;
		type_add(&seg[i].whole, v, vlen);
		if (st->upper)
			continue;
		p = name_prefix(v, vlen);
		if (first)
		{
			seg[i].pre_ok = p > 0;
			seg[i].prelen = p;
			memcpy(seg[i].pre, v, p);
		}
		else if (seg[i].pre_ok && (p != seg[i].prelen || memcmp(seg[i].pre, v, p) != 0))
			seg[i].pre_ok = false;
		if (seg[i].pre_ok)
			type_add(&seg[i].rest, v + p, vlen - p);
	}
}

/* ---- names ---- */

/* Appends tag as words: USER_GROUP -> UserGroup (upper_first) or userGroup; $user_1 -> User */
static void
append_camel(StringInfo buf, const char *tag, bool upper_first)
{
	int			len = strlen(tag);
	int			i;
	bool		word_start = true;
	bool		first = true;

	if (tag[0] == '$')
	{
		tag++;
		len--;
		/* ElectroDB's entity version suffix, $user_1 */
		i = len;
		while (i > 0 && is_digit(tag[i - 1]))
			i--;
		if (i > 0 && i < len && tag[i - 1] == '_')
			len = i - 1;
	}
	for (i = 0; i < len; i++)
	{
		char		c = tag[i];

		if (!is_letter(c) && !is_digit(c))
		{
			word_start = true;
			continue;
		}
		if (word_start && !(first && !upper_first))
			appendStringInfoChar(buf, pg_toupper((unsigned char) c));
		else
			appendStringInfoChar(buf, pg_tolower((unsigned char) c));
		word_start = false;
		first = false;
	}
}

/* name, or name2, name3 ... : the first not in used; added to used */
static char *
dedupe(List **used, const char *name)
{
	char	   *candidate = pstrdup(name);
	int			n = 2;
	ListCell   *lc;
	bool		taken;

	for (;;)
	{
		taken = false;
		foreach(lc, *used)
			if (strcmp((char *) lfirst(lc), candidate) == 0)
				taken = true;
		if (!taken)
			break;
		candidate = psprintf("%s%d", name, n++);
	}
	*used = lappend(*used, candidate);
	return candidate;
}

static void
append_literal(StringInfo buf, const char *s, int len)
{
	int			i;

	for (i = 0; i < len; i++)
	{
		if (s[i] == '{' || s[i] == '}')
			appendStringInfoChar(buf, s[i]);
		appendStringInfoChar(buf, s[i]);
	}
}

/* The template of one key of shape sh; field names deduplicated in *fields */
static char *
make_template(const Style *st, Shape *sh, int k, List **fields)
{
	StringInfoData buf;
	StringInfoData name;
	int			i;

	initStringInfo(&buf);
	for (i = 0; i < sh->nseg[k]; i++)
	{
		SegInfo    *seg = &sh->seg[k][i];
		const TypeFlags *flags = &seg->whole;
		char	   *type;

		if (i > 0)
			append_literal(&buf, &st->delim, 1);
		if (seg->is_tag)
		{
			append_literal(&buf, seg->tag, strlen(seg->tag));
			continue;
		}
		initStringInfo(&name);
		if (seg->pre_ok)
		{
			/* ElectroDB's attribute_value: the literal name_, the field is the name */
			append_literal(&buf, seg->pre, seg->prelen);
			appendBinaryStringInfo(&name, seg->pre, seg->prelen - 1);
			flags = &seg->rest;
		}
		else if (i > 0 && sh->seg[k][i - 1].is_tag)
		{
			append_camel(&name, sh->seg[k][i - 1].tag, false);
			appendStringInfoString(&name, "Id");
		}
		if (name.len == 0)
			appendStringInfoString(&name, "id");
		appendStringInfo(&buf, "{%s", dedupe(fields, name.data));
		type = type_name(flags);
		if (type)
			appendStringInfo(&buf, ":%s", type);
		appendStringInfoChar(&buf, '}');
	}
	return buf.data;
}

static int
shape_cmp(const ListCell *a, const ListCell *b)
{
	Shape	   *x = lfirst(a);
	Shape	   *y = lfirst(b);
	int			c = strcmp(x->tmpl[0], y->tmpl[0]);

	if (c != 0)
		return c;
	if (x->tmpl[1] == NULL || y->tmpl[1] == NULL)
		return (x->tmpl[1] != NULL) - (y->tmpl[1] != NULL);
	return strcmp(x->tmpl[1], y->tmpl[1]);
}

/*
 * The entity's name: the sort key's tags when it has fields (POST#{..} ->
 * Post, SOURCE#FOLDER#{..} -> SourceFolder) or is ElectroDB's $entity_1;
 * the partition key's tags followed by the sort key's when the sort key is
 * a constant (USER#{..} / PROFILE -> UserProfile); the partition key's
 * when there is no sort key or it has no tag. Taken names get the
 * partition key's tags in front, then a number.
 */
static char *
entity_name(Shape *sh, bool has_sk, List **used)
{
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	if (has_sk && sh->sk_has_tags && (sh->sk_has_values || sh->sk_electrodb))
		appendStringInfoString(&buf, sh->sk_tags);
	else if (has_sk && sh->sk_has_tags)
		appendStringInfo(&buf, "%s%s", sh->pk_tags, sh->sk_tags);
	else
		appendStringInfoString(&buf, sh->pk_tags);
	if (buf.len == 0)
		appendStringInfoString(&buf, "Entity");
	foreach(lc, *used)
		if (strcmp((char *) lfirst(lc), buf.data) == 0 && sh->pk_tags[0] != '\0' &&
			strncmp(buf.data, sh->pk_tags, strlen(sh->pk_tags)) != 0)
		{
			buf.data = psprintf("%s%s", sh->pk_tags, buf.data);
			break;
		}
	return dedupe(used, buf.data);
}

static char *
tags_camel(Shape *sh, int k, bool *has_tags, bool *has_values)
{
	StringInfoData buf;
	int			i;

	initStringInfo(&buf);
	*has_tags = *has_values = false;
	for (i = 0; i < sh->nseg[k]; i++)
	{
		if (sh->seg[k][i].is_tag)
		{
			append_camel(&buf, sh->seg[k][i].tag, true);
			*has_tags = true;
		}
		else
			*has_values = true;
	}
	return buf.data;
}

/* ---- reading ---- */

/* The text of key column col of tup (S as it is, N and B as their text) */
static void
key_text(HeapTuple tup, TupleDesc desc, int col, StKeyType type, const char **s, int *len)
{
	bool		isnull;
	Datum		d = SPI_getbinval(tup, desc, col, &isnull);
	text	   *t;

	if (isnull)
	{
		*s = "";
		*len = 0;
		return;
	}
	t = type == ST_KEY_S ? DatumGetTextPP(d) : st_key_datum_to_text(type, d);
	*s = VARDATA_ANY(t);
	*len = VARSIZE_ANY_EXHDR(t);
}

/*
 * The delimiter (the one of ST_KEY_DELIMITERS that the most key values of
 * the first batch contain; ties in that order) and the style (upper case
 * when at least as many of their first segments are upper-case tags as
 * other tags).
 */
static void
detect_style(SPITupleTable *tt, uint64 n, int nkeys, StKeyType *types, Style *st)
{
	int64		count[3] = {0, 0, 0};
	int64		upper = 0,
				other = 0;
	uint64		i;
	int			k,
				d;
	int			best = -1;

	for (i = 0; i < n; i++)
		for (k = 0; k < nkeys; k++)
		{
			const char *s;
			int			len;

			key_text(tt->vals[i], tt->tupdesc, k + 1, types[k], &s, &len);
			for (d = 0; d < 3; d++)
				if (memchr(s, ST_KEY_DELIMITERS[d], len) != NULL)
					count[d]++;
		}
	for (d = 0; d < 3; d++)
		if (count[d] > 0 && (best < 0 || count[d] > count[best]))
			best = d;
	st->delim = best < 0 ? '\0' : ST_KEY_DELIMITERS[best];
	for (i = 0; i < n; i++)
		for (k = 0; k < nkeys; k++)
		{
			const char *s;
			int			len;
			const char *end;

			key_text(tt->vals[i], tt->tupdesc, k + 1, types[k], &s, &len);
			end = st->delim ? memchr(s, st->delim, len) : NULL;
			if (end)
				len = end - s;
			if (tag_like(s, len))
			{
				if (has_lower(s, len))
					other++;
				else
					upper++;
			}
		}
	st->upper = upper >= other;
}

List *
st_infer_entities(text *name, bool has_sample, double pct)
{
	MemoryContext outer = CurrentMemoryContext;
	MemoryContext work;
	MemoryContext rowcxt;
	MemoryContext old;
	StTable    *tab;
	StringInfoData sql;
	StringInfoData key;
	Oid			argtypes[1] = {FLOAT8OID};
	Datum		values[1] = {Float8GetDatum(pct)};
	Portal		portal;
	HASHCTL		ctl;
	HTAB	   *shapes;
	HASH_SEQ_STATUS hs;
	Shape	   *sh;
	Style		st = {'\0', true};
	StKeyType	types[2];
	int			nkeys;
	bool		first_batch = true;
	int64		read = 0,
				other = 0;
	long		nshapes = 0;
	List	   *list = NIL;
	List	   *names = NIL;
	List	   *result = NIL;
	ListCell   *lc;
	char	   *tabname;

	st_inventory_check_sample(name ? text_to_cstring(name) : "(null)", has_sample, pct);
	SPI_connect();
	tab = st_table_open(name, AccessShareLock, ACL_SELECT);
	tabname = text_to_cstring(name);
	if (tab->pk_type != ST_KEY_S || (tab->sk_name && tab->sk_type != ST_KEY_S))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("infer_entities needs String keys: the %s key of table \"%s\" is of type %c",
						tab->pk_type != ST_KEY_S ? "partition" : "sort", tabname,
						(char) (tab->pk_type != ST_KEY_S ? tab->pk_type : tab->sk_type)),
				 errhint("Entity templates are for String (S) keys.")));
	nkeys = tab->sk_name ? 2 : 1;
	types[0] = tab->pk_type;
	types[1] = tab->sk_type;

	work = AllocSetContextCreate(CurrentMemoryContext, "infer_entities", ALLOCSET_DEFAULT_SIZES);
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = SHAPE_KEY_LEN;
	ctl.entrysize = sizeof(Shape);
	ctl.hcxt = work;
	shapes = hash_create("infer_entities shapes", ST_INFER_MAX_SHAPES, &ctl,
						 HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);

	initStringInfo(&sql);
	appendStringInfo(&sql, "SELECT t.%s", quote_identifier(tab->pk_name));
	if (tab->sk_name)
		appendStringInfo(&sql, ", t.%s", quote_identifier(tab->sk_name));
	appendStringInfo(&sql, " FROM %s t", tab->qualname);
	if (has_sample)
		appendStringInfoString(&sql, " TABLESAMPLE SYSTEM ($1)");
	portal = SPI_cursor_open_with_args(NULL, sql.data, has_sample ? 1 : 0, argtypes, values,
									   NULL, true, 0);
	initStringInfo(&key);
	rowcxt = AllocSetContextCreate(work, "infer_entities row", ALLOCSET_SMALL_SIZES);
	for (;;)
	{
		uint64		i;

		SPI_cursor_fetch(portal, true, FETCH_ROWS);
		if (SPI_processed == 0)
			break;
		if (first_batch)
			detect_style(SPI_tuptable, SPI_processed, nkeys, types, &st);
		first_batch = false;
		for (i = 0; i < SPI_processed; i++)
		{
			const char *s[2];
			int			len[2];
			int			nseg[2];
			int			start[2][ST_INFER_MAX_SEGMENTS];
			int			seglen[2][ST_INFER_MAX_SEGMENTS];
			bool		tags[2][ST_INFER_MAX_SEGMENTS];
			bool		found;
			int			k;

			CHECK_FOR_INTERRUPTS();
			read++;
			MemoryContextReset(rowcxt);
			old = MemoryContextSwitchTo(rowcxt);
			resetStringInfo(&key);
			for (k = 0; k < nkeys; k++)
			{
				key_text(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, k + 1, types[k], &s[k], &len[k]);
				if (k > 0)
					appendStringInfoChar(&key, '\x01');
				shape_of(&st, s[k], len[k], &key, &nseg[k], start[k], seglen[k], tags[k]);
			}
			sh = hash_search(shapes, key.data, HASH_FIND, NULL);
			if (sh == NULL)
			{
				if (nshapes >= ST_INFER_MAX_SHAPES)
				{
					other++;
					MemoryContextSwitchTo(old);
					continue;
				}
				sh = hash_search(shapes, key.data, HASH_ENTER, &found);
				memset(((char *) sh) + SHAPE_KEY_LEN, 0, sizeof(Shape) - SHAPE_KEY_LEN);
				nshapes++;
				for (k = 0; k < nkeys; k++)
					sh->nseg[k] = nseg[k];
			}
			for (k = 0; k < nkeys; k++)
				key_add(&st, sh->seg[k], s[k], nseg[k], start[k], seglen[k], tags[k], sh->items == 0);
			sh->items++;
			MemoryContextSwitchTo(old);
		}
		SPI_freetuptable(SPI_tuptable);
	}
	SPI_cursor_close(portal);

	/* the templates, then the names in the order of the templates */
	hash_seq_init(&hs, shapes);
	while ((sh = hash_seq_search(&hs)) != NULL)
	{
		List	   *fields = NIL;
		bool		has_values;
		bool		dummy;

		sh->tmpl[0] = make_template(&st, sh, 0, &fields);
		sh->tmpl[1] = nkeys > 1 ? make_template(&st, sh, 1, &fields) : NULL;
		sh->pk_tags = tags_camel(sh, 0, &dummy, &has_values);
		if (nkeys > 1)
		{
			sh->sk_tags = tags_camel(sh, 1, &sh->sk_has_tags, &sh->sk_has_values);
			sh->sk_electrodb = sh->seg[1][0].is_tag && sh->seg[1][0].tag[0] == '$';
		}
		list = lappend(list, sh);
	}
	list_sort(list, shape_cmp);

	foreach(lc, list)
	{
		StInferredEntity *e;
		char	   *ename;
		StringInfoData stmt;

		sh = lfirst(lc);
		ename = entity_name(sh, nkeys > 1, &names);
		initStringInfo(&stmt);
		appendStringInfo(&stmt, "SELECT singletable.define_entity(%s, %s, pk => %s",
						 quote_literal_cstr(tabname), quote_literal_cstr(ename),
						 quote_literal_cstr(sh->tmpl[0]));
		if (sh->tmpl[1])
			appendStringInfo(&stmt, ", sk => %s", quote_literal_cstr(sh->tmpl[1]));
		appendStringInfoString(&stmt, ");");

		old = MemoryContextSwitchTo(outer);
		e = palloc0(sizeof(StInferredEntity));
		e->entity = pstrdup(ename);
		e->pk_template = pstrdup(sh->tmpl[0]);
		e->sk_template = sh->tmpl[1] ? pstrdup(sh->tmpl[1]) : NULL;
		e->items = has_sample ? (int64) rint((double) sh->items * 100.0 / pct) : sh->items;
		e->statement = pstrdup(stmt.data);
		result = lappend(result, e);
		MemoryContextSwitchTo(old);
	}

	if (other > 0)
		ereport(NOTICE,
				(errmsg("infer_entities: table \"%s\" has more than %d key shapes; " INT64_FORMAT " of the " INT64_FORMAT " items read have shapes not shown",
						tabname, ST_INFER_MAX_SHAPES, other, read)));
	if (has_sample)
		ereport(NOTICE,
				(errmsg("infer_entities read " INT64_FORMAT " items of table \"%s\", a sample of %g%% of its pages; items are scaled up",
						read, tabname, pct)));
	SPI_finish();
	return result;
}
