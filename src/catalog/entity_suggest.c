/*
 * entity_suggest.c — the typo guard (see entity_suggest.h): a Query's
 * partition key and begins_with prefix against the key templates of the
 * table's entities, and the closest registered type tags to suggest.
 *
 * Messages quote what the caller gave only as far as the issue asks: the
 * begins_with prefix (the query's argument, capped), and of a partition key
 * only its type tag (the text up to its first delimiter), never a field's
 * value.
 *
 * Cost: every loop is over the table's entities, and over at most
 * ST_SUGGEST_MAX_BYTES bytes of the key per entity (the distance is
 * computed on capped strings), so the check is linear in the entities and
 * bounded per entity, whatever the input.
 */
#include "postgres.h"

#include <limits.h>

#include "mb/pg_wchar.h"
#include "miscadmin.h"

#include "catalog/entity_suggest.h"
#include "utils/errors.h"

int			st_prefix_check = ST_CHECK_WARNING;

int
st_edit_distance(const char *a, int alen, const char *b, int blen)
{
	int			prev[ST_SUGGEST_MAX_BYTES + 1];
	int			cur[ST_SUGGEST_MAX_BYTES + 1];

	alen = Min(alen, ST_SUGGEST_MAX_BYTES);
	blen = Min(blen, ST_SUGGEST_MAX_BYTES);
	for (int j = 0; j <= blen; j++)
		prev[j] = j;
	for (int i = 1; i <= alen; i++)
	{
		cur[0] = i;
		for (int j = 1; j <= blen; j++)
		{
			int			d = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);

			d = Min(d, prev[j] + 1);
			d = Min(d, cur[j - 1] + 1);
			cur[j] = d;
		}
		memcpy(prev, cur, sizeof(int) * (blen + 1));
	}
	return prev[blen];
}

int
st_tag_distance(const StTemplate *t, const char *key, int keylen)
{
	if (t->prefix_len == 0)
		return INT_MAX;
	return st_edit_distance(key, Min(keylen, t->prefix_len), t->prefix, t->prefix_len);
}

void
st_suggest_quote(StringInfo buf, const char *s, int len)
{
	int			n = len;

	if (n > ST_SUGGEST_MAX_BYTES)
		n = pg_mbcliplen(s, len, ST_SUGGEST_MAX_BYTES);
	appendStringInfoChar(buf, '\'');
	appendBinaryStringInfo(buf, s, n);
	if (n < len)
		appendStringInfoString(buf, "...");
	appendStringInfoChar(buf, '\'');
}

int
st_suggest_tags(StringInfo buf, const StSuggestCand *cands, int n, const char *key, int keylen)
{
	int		   *dist = palloc(sizeof(int) * (n + 1));
	int			chosen[ST_SUGGEST_MAX];
	int			nchosen = 0;

	for (int i = 0; i < n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		dist[i] = st_tag_distance(cands[i].t, key, keylen);
	}
	/*
	 * Up to ST_SUGGEST_MAX times the nearest tag not chosen yet (ties: the
	 * smaller tag): the nearest of all, then those about as near (at most one
	 * edit more, and at most half the tag edited), not every tag there is.
	 */
	while (nchosen < ST_SUGGEST_MAX)
	{
		int			best = -1;

		for (int i = 0; i < n; i++)
		{
			bool		taken = false;

			if (dist[i] == INT_MAX)
				continue;
			for (int k = 0; k < nchosen; k++)
				if (strcmp(cands[chosen[k]].t->prefix, cands[i].t->prefix) == 0)
					taken = true;
			if (taken)
				continue;
			if (best < 0 || dist[i] < dist[best] ||
				(dist[i] == dist[best] && strcmp(cands[i].t->prefix, cands[best].t->prefix) < 0))
				best = i;
		}
		if (best < 0)
			break;
		if (nchosen > 0 && (dist[best] > dist[chosen[0]] + 1 ||
							2 * dist[best] > cands[best].t->prefix_len))
			break;
		chosen[nchosen++] = best;
	}
	for (int k = 0; k < nchosen; k++)
	{
		const char *tag = cands[chosen[k]].t->prefix;
		int			named = 0;
		int			same = 0;

		if (k > 0)
			appendStringInfoString(buf, k == nchosen - 1 ? " or " : ", ");
		appendStringInfo(buf, "'%s' (", tag);
		for (int i = 0; i < n; i++)
			if (strcmp(cands[i].t->prefix, tag) == 0)
				same++;
		appendStringInfoString(buf, same > 1 ? "entities " : "entity ");
		for (int i = 0; i < n; i++)
		{
			if (strcmp(cands[i].t->prefix, tag) != 0)
				continue;
			if (named == ST_SUGGEST_MAX)
			{
				appendStringInfoString(buf, ", ...");
				break;
			}
			appendStringInfo(buf, "%s%s", named > 0 ? ", " : "", cands[i].entity);
			named++;
		}
		appendStringInfoChar(buf, ')');
	}
	pfree(dist);
	return nchosen;
}

/* Raises the typo guard's message at the level of singletable.prefix_check */
static void
report(const char *msg)
{
	if (st_prefix_check == ST_CHECK_ERROR)
		ereport(ERROR,
				(errcode(ERRCODE_ST_PREFIX_MISMATCH),
				 errmsg("%s", msg),
				 st_errdetail_dynamodb("Query condition can match no entity: %s", msg),
				 errhint("singletable.prefix_check = warning reports this without refusing the query.")));
	ereport(WARNING,
			(errcode(ERRCODE_ST_WARNING_PREFIX_MISMATCH),
			 errmsg("%s", msg)));
}

/* " in index \"name\"" for a query on an index, else "" */
static char *
where_text(StIndex *idx)
{
	return idx ? psprintf(" in index \"%s\"", idx->name) : "";
}

/* The partition key pk matches no candidate's template: says how, and suggests */
static void
report_partition(StTable *tab, StIndex *idx, const StSuggestCand *cands, int n,
				 const char *pk, int pklen)
{
	StringInfoData msg;
	int			tlen = st_key_tag_length(pk, Min(pklen, ST_SUGGEST_MAX_BYTES));

	initStringInfo(&msg);
	/* the tag and the rest of a template, with a field's value of another type */
	for (int i = 0; i < n; i++)
	{
		int			bad;

		if (st_template_match_loose(cands[i].t, pk, pklen, &bad) && bad >= 0)
		{
			const StTemplatePart *f = st_template_field(cands[i].t, bad);

			appendStringInfo(&msg, "the partition key queried on table \"%s\"%s has the form %s of entity \"%s\","
							 " but its field \"%s\" is not a valid %s, so it can match no item of the entity",
							 tab->relname, where_text(idx), cands[i].t->source, cands[i].entity,
							 f->text, st_field_type_text(f->type, f->width));
			report(msg.data);
			return;
		}
	}
	if (tlen > 0)
	{
		appendStringInfo(&msg, "no entity of table \"%s\" has a partition key%s beginning with ",
						 tab->relname, where_text(idx));
		st_suggest_quote(&msg, pk, tlen);
	}
	else
		appendStringInfo(&msg, "no entity of table \"%s\" has a partition key%s of the form queried",
						 tab->relname, where_text(idx));
	appendStringInfoString(&msg, "; did you mean ");
	if (st_suggest_tags(&msg, cands, n, pk, tlen > 0 ? tlen : pklen) > 0)
		appendStringInfoChar(&msg, '?');
	else
	{
		msg.len -= strlen("; did you mean ");
		msg.data[msg.len] = '\0';
	}
	report(msg.data);
}

void
st_prefix_check_query(StTable *tab, StIndex *idx, const char *pk, int pklen,
					  const char *prefix, int prefixlen)
{
	StSuggestCand *pkc;
	StSuggestCand *skc;
	int			npk = 0;
	int			nsk = 0;
	bool		pk_matched = false;
	bool		sk_possible = false;

	if (tab->n_entities == 0 || st_prefix_check == ST_CHECK_OFF)
		return;
	pkc = palloc(sizeof(StSuggestCand) * tab->n_entities);
	skc = palloc(sizeof(StSuggestCand) * tab->n_entities);
	for (int i = 0; i < tab->n_entities; i++)
	{
		StEntity   *e = &tab->entities[i];
		const StTemplate *pt;
		const StTemplate *st;

		CHECK_FOR_INTERRUPTS();
		if (idx == NULL)
		{
			pt = e->pk;
			st = e->sk;
		}
		else
		{
			StEntityIndex *ix = st_entity_index(e, idx->name);

			if (ix == NULL)
				continue;
			pt = idx->is_lsi ? e->pk : ix->pk;
			st = ix->sk;
		}
		if (pt)
			pkc[npk++] = (StSuggestCand) {pt, e->name};
		/* pt NULL: the entity gives no partition key template here, any value may be its */
		if (pk && pt && !st_template_match(pt, pk, pklen, NULL))
			continue;
		pk_matched = true;
		if (st)
		{
			skc[nsk++] = (StSuggestCand) {st, e->name};
			if (prefix && st_template_prefix_possible(st, prefix, prefixlen))
				sk_possible = true;
		}
	}
	if (pk && !pk_matched && npk > 0)
		report_partition(tab, idx, pkc, npk, pk, pklen);
	else if (prefix && nsk > 0 && !sk_possible)
	{
		StringInfoData msg;

		initStringInfo(&msg);
		appendStringInfo(&msg, "no entity of table \"%s\" has a sort key%s beginning with ",
						 tab->relname, where_text(idx));
		st_suggest_quote(&msg, prefix, prefixlen);
		appendStringInfoString(&msg, "; did you mean ");
		if (st_suggest_tags(&msg, skc, nsk, prefix, prefixlen) > 0)
			appendStringInfoChar(&msg, '?');
		else
		{
			/* no type tag to suggest: the templates it fits none of */
			msg.len -= strlen("; did you mean ");
			msg.data[msg.len] = '\0';
			appendStringInfoString(&msg, "; the templates there are ");
			for (int i = 0; i < nsk && i < ST_SUGGEST_MAX; i++)
				appendStringInfo(&msg, "%s%s (entity %s)", i > 0 ? ", " : "", skc[i].t->source, skc[i].entity);
			if (nsk > ST_SUGGEST_MAX)
				appendStringInfoString(&msg, ", ...");
		}
		report(msg.data);
	}
	pfree(pkc);
	pfree(skc);
}
