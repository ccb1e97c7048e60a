/*
 * dynamodb_export.c — singletable.export_code: a DynamoDB read request
 * (Query, Scan, GetItem) written as a runnable program for the AWS SDK v3
 * DocumentClient (JavaScript), boto3's Table resource (Python) or SQL (psql).
 *
 * The request is first run once, rolled back, with the typo and entity
 * guards at ERROR (st_ddb_run_rolled_back): a request DynamoDB would refuse,
 * or whose partition key or begins_with prefix matches no entity of the
 * table (USERS# for USER#), is refused here rather than written into a
 * program. A key value that one of the table's entity templates matches
 * (USER#u_1001 by USER#{userId}) becomes the program's inputs, the template's
 * fields, composed with the template's literal text taken from the registry;
 * every other value is written as given. The programs read every page: a
 * Query or Scan follows LastEvaluatedKey to the end (the request's Limit is
 * the page size), and print each item as one line of JSON.
 */
#include "postgres.h"

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"

#include "api/dynamodb.h"
#include "catalog/entities.h"
#include "catalog/registry.h"
#include "format/attrval.h"
#include "format/jsonval.h"
#include "format/template.h"

PG_FUNCTION_INFO_V1(singletable_export_code);

typedef enum ExportLang
{
	LANG_JS,
	LANG_PY,
	LANG_SQL
} ExportLang;

/* A program input: one field of an entity's key template */
typedef struct Input
{
	char	   *name;			/* the field's name, an identifier */
	char	   *value;			/* its value in the request: the input's default */
	char	   *origin;			/* "field userId of entity user (USER#{userId})" */
} Input;

/* A key value written as its template's composition of inputs */
typedef struct Composed
{
	char	   *placeholder;	/* ":p", or a Key attribute's name */
	bool		in_key;			/* a Key attribute (GetItem), not a placeholder */
	const StTemplate *t;
	int		   *inputs;			/* per field of t, its input */
} Composed;

typedef struct Export
{
	ExportLang	lang;
	const char *op;
	char	   *table;			/* DynamoDB's name */
	char	   *sql_table;		/* the SQL functions' name: schema-qualified, quoted */
	Jsonb	   *request;		/* with TableName */
	StTable    *tab;
	int			n_inputs;
	Input		inputs[ST_TEMPLATE_MAX_FIELDS * 4];
	int			n_composed;
	Composed	composed[8];
	StringInfoData notes;		/* comment lines: what the registry says of the keys */
} Export;

static JsonbValue *
member(Jsonb *j, const char *name)
{
	return getKeyJsonValueFromContainer(&j->root, name, strlen(name), NULL);
}

static char *
member_string(Jsonb *j, const char *name)
{
	JsonbValue *v = member(j, name);

	return v && v->type == jbvString ? pnstrdup(v->val.string.val, v->val.string.len) : NULL;
}

/* Whether s is an identifier of all three languages (and not too long) */
static bool
plain_identifier(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_') || strlen(s) > 63)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

/* The input for field f with value v, shared with an earlier one of the same name and value */
static int
add_input(Export *x, const char *f, const char *v, const char *origin)
{
	char	   *name = pstrdup(f);

	for (int i = 0; i < x->n_inputs; i++)
		if (strcmp(x->inputs[i].name, f) == 0)
		{
			if (strcmp(x->inputs[i].value, v) == 0)
				return i;
			name = psprintf("%s_%d", f, x->n_inputs + 1);
		}
	x->inputs[x->n_inputs].name = name;
	x->inputs[x->n_inputs].value = pstrdup(v);
	x->inputs[x->n_inputs].origin = pstrdup(origin);
	return x->n_inputs++;
}

/*
 * The template of tab's entities (or of their keys of index index) that the
 * String value matches, pk or sk; NULL: none. *entity is its entity.
 */
static const StTemplate *
matching_template(StTable *tab, const char *index, bool pk, const char *value, StEntity **entity, char ***fields)
{
	for (int i = 0; i < tab->n_entities; i++)
	{
		StEntity   *e = &tab->entities[i];
		const StTemplate *t;

		if (index)
		{
			StEntityIndex *ei = st_entity_index(e, index);

			t = ei ? (pk ? ei->pk : ei->sk) : NULL;
		}
		else
			t = pk ? e->pk : e->sk;
		if (t == NULL || st_template_is_constant(t))
			continue;
		*fields = palloc0(sizeof(char *) * t->nfields);
		if (st_template_match(t, value, strlen(value), *fields))
		{
			*entity = e;
			return t;
		}
	}
	return NULL;
}

/*
 * Looks at one String key value: composed from its template when an entity's
 * matches (its fields become inputs), noted when it is a prefix of entities'
 * keys.
 */
static void
key_value(Export *x, const char *placeholder, bool in_key, const char *index, bool pk, const char *value)
{
	StEntity   *e = NULL;
	char	  **fields = NULL;
	const StTemplate *t;

	if (x->n_composed == lengthof(x->composed))
		return;
	t = matching_template(x->tab, index, pk, value, &e, &fields);
	if (t)
	{
		Composed   *c = &x->composed[x->n_composed++];
		bool		ok = true;

		for (int f = 0; f < t->nfields; f++)
			ok = ok && plain_identifier(st_template_field(t, f)->text);
		if (!ok)
		{
			x->n_composed--;
			return;
		}
		c->placeholder = pstrdup(placeholder);
		c->in_key = in_key;
		c->t = t;
		c->inputs = palloc(sizeof(int) * Max(t->nfields, 1));
		for (int f = 0; f < t->nfields; f++)
		{
			const StTemplatePart *part = st_template_field(t, f);

			c->inputs[f] = add_input(x, part->text, fields[f],
									 psprintf("field %s (%s) of the %s key %s", part->text,
											  st_field_type_text(part->type, part->width),
											  pk ? "partition" : "sort", t->source));
		}
		{
			StringInfoData names;

			/* every entity with this template: a partition key is often shared (USER#{userId}) */
			initStringInfo(&names);
			for (int i = 0; i < x->tab->n_entities; i++)
			{
				StEntity   *o = &x->tab->entities[i];
				StEntityIndex *oi = index ? st_entity_index(o, index) : NULL;
				const StTemplate *ot = index ? (oi ? (pk ? oi->pk : oi->sk) : NULL) : (pk ? o->pk : o->sk);

				if (ot && strcmp(ot->source, t->source) == 0)
					appendStringInfo(&names, "%s%s", names.len ? ", " : "", o->name);
			}
			appendStringInfo(&x->notes, "%s: the %s key %s of %s\n", placeholder,
							 pk ? "partition" : "sort", t->source, names.data);
		}
		return;
	}
	/* a begins_with prefix: which entities' keys it reads */
	if (!pk)
	{
		StringInfoData which;

		initStringInfo(&which);
		for (int i = 0; i < x->tab->n_entities; i++)
		{
			StEntity   *en = &x->tab->entities[i];
			StEntityIndex *ei = index ? st_entity_index(en, index) : NULL;
			const StTemplate *st = index ? (ei ? ei->sk : NULL) : en->sk;

			if (st && st_template_prefix_possible(st, value, strlen(value)))
				appendStringInfo(&which, "%s%s (%s)", which.len ? ", " : "", en->name, st->source);
		}
		if (which.len)
			appendStringInfo(&x->notes, "%s: the sort keys of %s\n", placeholder, which.data);
	}
}

/* The placeholders (":name") that expression text uses, in order, each once */
static List *
placeholders_of(const char *text)
{
	List	   *r = NIL;

	if (text == NULL)
		return NIL;
	for (const char *p = text; *p; p++)
	{
		CHECK_FOR_INTERRUPTS();
		if (*p == ':')
		{
			const char *q = p + 1;
			char	   *name;
			ListCell   *lc;
			bool		seen = false;

			while (*q && ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
						  (*q >= '0' && *q <= '9') || *q == '_'))
				q++;
			name = pnstrdup(p, q - p);
			foreach(lc, r)
				seen = seen || strcmp(lfirst(lc), name) == 0;
			if (!seen && q > p + 1)
				r = lappend(r, name);
			p = q - 1;
		}
	}
	return r;
}

/* The String value of AttributeValue av ({"S": ...}), or NULL */
static char *
av_string(JsonbValue *av)
{
	JsonbValue *s;

	if (av == NULL || av->type != jbvBinary || !JsonContainerIsObject(av->val.binary.data))
		return NULL;
	s = getKeyJsonValueFromContainer(av->val.binary.data, "S", 1, NULL);
	return s && s->type == jbvString ? pnstrdup(s->val.string.val, s->val.string.len) : NULL;
}

/* Finds the key values of the request that entities' templates describe */
static void
find_key_values(Export *x)
{
	char	   *index = member_string(x->request, "IndexName");

	if (x->tab->n_entities == 0)
		return;
	if (strcmp(x->op, "Query") == 0)
	{
		JsonbValue *vals = member(x->request, "ExpressionAttributeValues");
		List	   *used = placeholders_of(member_string(x->request, "KeyConditionExpression"));
		ListCell   *lc;
		int			n = 0;

		/* the first placeholder of a key condition is the partition key's, as DynamoDB's users write it */
		foreach(lc, used)
		{
			char	   *ph = lfirst(lc);
			JsonbValue *av = vals && vals->type == jbvBinary ?
				getKeyJsonValueFromContainer(vals->val.binary.data, ph, strlen(ph), NULL) : NULL;
			char	   *s = av_string(av);

			if (s)
				key_value(x, ph, false, index, n == 0, s);
			n++;
		}
	}
	else if (strcmp(x->op, "GetItem") == 0)
	{
		JsonbValue *key = member(x->request, "Key");
		char	   *pk = key && key->type == jbvBinary ?
			av_string(getKeyJsonValueFromContainer(key->val.binary.data, x->tab->pk_name,
												   strlen(x->tab->pk_name), NULL)) : NULL;
		char	   *sk = key && key->type == jbvBinary && x->tab->sk_name ?
			av_string(getKeyJsonValueFromContainer(key->val.binary.data, x->tab->sk_name,
												   strlen(x->tab->sk_name), NULL)) : NULL;

		if (pk)
			key_value(x, x->tab->pk_name, true, NULL, true, pk);
		if (sk)
			key_value(x, x->tab->sk_name, true, NULL, false, sk);
	}
}

/* The composition of c in the program's language */
static void
append_composed(StringInfo b, Export *x, Composed *c)
{
	bool		first = true;
	int			f = 0;

	/*
	 * The template's literal text and the inputs' text, as given: in SQL too
	 * (not key_compose, which would write a typed field its own way, and a
	 * key written otherwise compares otherwise)
	 */
	for (int i = 0; i < c->t->nparts; i++)
	{
		const StTemplatePart *p = &c->t->parts[i];

		if (!first)
			appendStringInfoString(b, x->lang == LANG_SQL ? " || " : " + ");
		first = false;
		if (p->is_field && x->lang == LANG_SQL)
			appendStringInfo(b, ":'%s'::text", x->inputs[c->inputs[f++]].name);
		else if (p->is_field)
			appendStringInfoString(b, x->inputs[c->inputs[f++]].name);
		else if (x->lang == LANG_SQL)
			appendStringInfoString(b, quote_literal_cstr(p->text));
		else
			escape_json(b, p->text);
	}
}

static Composed *
composed_for(Export *x, const char *name, bool in_key)
{
	for (int i = 0; i < x->n_composed; i++)
		if (x->composed[i].in_key == in_key && strcmp(x->composed[i].placeholder, name) == 0)
			return &x->composed[i];
	return NULL;
}

/*
 * A JavaScript or Python expression for an AttributeValue map (Key or
 * ExpressionAttributeValues) in plain values: the map as given, converted
 * at run time (unmarshall, TypeDeserializer), its composed members replaced.
 */
static void
append_value_map(StringInfo b, Export *x, JsonbValue *map, bool in_key)
{
	StringInfoData js;
	bool		any = false;

	initStringInfo(&js);
	(void) JsonbToCString(&js, map->val.binary.data, map->val.binary.len);
	for (int i = 0; i < x->n_composed; i++)
		any = any || x->composed[i].in_key == in_key;
	if (x->lang == LANG_JS)
	{
		appendStringInfo(b, "{ ...unmarshall(%s, { wrapNumbers: true })", js.data);
		for (int i = 0; i < x->n_composed; i++)
			if (x->composed[i].in_key == in_key)
			{
				appendStringInfoString(b, ", ");
				escape_json(b, x->composed[i].placeholder);
				appendStringInfoString(b, ": ");
				append_composed(b, x, &x->composed[i]);
			}
		appendStringInfoString(b, " }");
	}
	else
	{
		appendStringInfoString(b, "{**plain(json.loads(");
		escape_json(b, js.data);
		appendStringInfoString(b, "))");
		for (int i = 0; i < x->n_composed; i++)
			if (x->composed[i].in_key == in_key)
			{
				appendStringInfoString(b, ", ");
				escape_json(b, x->composed[i].placeholder);
				appendStringInfoString(b, ": ");
				append_composed(b, x, &x->composed[i]);
			}
		appendStringInfoChar(b, '}');
	}
	(void) any;
}

/* The request's members but the AttributeValue maps, as a JSON object text */
static char *
plain_members(Export *x)
{
	JsonbParseState *st = NULL;
	JsonbIterator *it = JsonbIteratorInit(&x->request->root);
	JsonbValue	k,
				v;

	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	while (st_jbv_next_member(&it, &k, &v))
	{
		if ((k.val.string.len == 25 && memcmp(k.val.string.val, "ExpressionAttributeValues", 25) == 0) ||
			(k.val.string.len == 3 && memcmp(k.val.string.val, "Key", 3) == 0) ||
			(k.val.string.len == 17 && memcmp(k.val.string.val, "ExclusiveStartKey", 17) == 0) ||
			(k.val.string.len == 22 && memcmp(k.val.string.val, "ReturnConsumedCapacity", 22) == 0))
			continue;
		pushJsonbValue(&st, WJB_KEY, &k);
		pushJsonbValue(&st, WJB_VALUE, &v);
	}
	return JsonbToCString(NULL, &JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL))->root, 0);
}

static void
header(StringInfo b, Export *x, const char *comment)
{
	char	   *notes = x->notes.data;

	if (strcmp(x->op, "GetItem") == 0)
		appendStringInfo(b, "%s %s of table %s, written by singletable.export_code: prints the item, if\n"
						 "%s there is one, as a line of JSON.\n", comment, x->op, x->table, comment);
	else
		appendStringInfo(b, "%s %s of table %s, written by singletable.export_code: reads every page and\n"
						 "%s prints each item as a line of JSON.\n", comment, x->op, x->table, comment);
	while (*notes)
	{
		char	   *nl = strchr(notes, '\n');

		appendStringInfo(b, "%s %.*s\n", comment, (int) (nl - notes), notes);
		notes = nl + 1;
	}
	for (int i = 0; i < x->n_inputs; i++)
		appendStringInfo(b, "%s input %d, %s: %s\n", comment, i + 1, x->inputs[i].name, x->inputs[i].origin);
}

static char *
program_js(Export *x)
{
	StringInfoData b;
	JsonbValue *vals = member(x->request, "ExpressionAttributeValues");
	JsonbValue *key = member(x->request, "Key");
	bool		paged = strcmp(x->op, "GetItem") != 0;
	/* the DocumentClient's commands: QueryCommand, ScanCommand, GetCommand */
	const char *command = paged ? x->op : "Get";

	initStringInfo(&b);
	header(&b, x, "//");
	appendStringInfoString(&b, "// Needs @aws-sdk/client-dynamodb and @aws-sdk/lib-dynamodb; the endpoint is\n"
						   "// DYNAMODB_ENDPOINT when set, else the SDK's configuration.\n");
	appendStringInfo(&b, "import { DynamoDBClient } from \"@aws-sdk/client-dynamodb\";\n"
					 "import { DynamoDBDocumentClient, %sCommand } from \"@aws-sdk/lib-dynamodb\";\n"
					 "import { unmarshall } from \"@aws-sdk/util-dynamodb\";\n\n", command);
	for (int i = 0; i < x->n_inputs; i++)
	{
		appendStringInfo(&b, "const %s = process.argv[%d] ?? ", x->inputs[i].name, i + 2);
		escape_json(&b, x->inputs[i].value);
		appendStringInfoString(&b, ";\n");
	}
	appendStringInfoString(&b, "const client = DynamoDBDocumentClient.from(new DynamoDBClient(\n"
						   "  process.env.DYNAMODB_ENDPOINT ? { endpoint: process.env.DYNAMODB_ENDPOINT } : {}));\n");
	appendStringInfo(&b, "const params = {\n  ...%s,\n", plain_members(x));
	if (vals && vals->type == jbvBinary)
	{
		appendStringInfoString(&b, "  ExpressionAttributeValues: ");
		append_value_map(&b, x, vals, false);
		appendStringInfoString(&b, ",\n");
	}
	if (key && key->type == jbvBinary)
	{
		appendStringInfoString(&b, "  Key: ");
		append_value_map(&b, x, key, true);
		appendStringInfoString(&b, ",\n");
	}
	appendStringInfoString(&b, "};\n"
						   "const show = (item) => JSON.stringify(item, (k, v) =>\n"
						   "  v instanceof Set ? [...v].map(String).sort() :\n"
						   "  v instanceof Uint8Array ? Buffer.from(v).toString(\"base64\") : v);\n");
	if (paged)
		appendStringInfo(&b, "let ExclusiveStartKey;\n"
						 "do {\n"
						 "  const page = await client.send(new %sCommand({ ...params, ExclusiveStartKey }));\n"
						 "  for (const item of page.Items ?? []) console.log(show(item));\n"
						 "  ExclusiveStartKey = page.LastEvaluatedKey;\n"
						 "} while (ExclusiveStartKey);\n", command);
	else
		appendStringInfo(&b, "const { Item } = await client.send(new %sCommand(params));\n"
						 "if (Item) console.log(show(Item));\n", command);
	return b.data;
}

static char *
program_py(Export *x)
{
	StringInfoData b;
	JsonbValue *vals = member(x->request, "ExpressionAttributeValues");
	JsonbValue *key = member(x->request, "Key");
	const char *method = strcmp(x->op, "Query") == 0 ? "query" : strcmp(x->op, "Scan") == 0 ? "scan" : "get_item";

	initStringInfo(&b);
	header(&b, x, "#");
	appendStringInfoString(&b, "# Needs boto3; the endpoint is DYNAMODB_ENDPOINT when set, else boto3's configuration.\n"
						   "import base64, decimal, json, os, sys\n"
						   "import boto3\n"
						   "from boto3.dynamodb.types import Binary, TypeDeserializer\n\n");
	for (int i = 0; i < x->n_inputs; i++)
	{
		appendStringInfo(&b, "%s = sys.argv[%d] if len(sys.argv) > %d else ", x->inputs[i].name, i + 1, i + 1);
		escape_json(&b, x->inputs[i].value);
		appendStringInfoChar(&b, '\n');
	}
	appendStringInfoString(&b, "\n\ndef plain(avs):\n"
						   "    \"\"\"AttributeValues as the Table resource takes them\"\"\"\n"
						   "    d = TypeDeserializer()\n"
						   "    return {k: d.deserialize(v) for k, v in avs.items()}\n\n\n"
						   "def show(v):\n"
						   "    if isinstance(v, decimal.Decimal):\n"
						   "        return int(v) if v == v.to_integral_value() else float(v)\n"
						   "    if isinstance(v, Binary):\n"
						   "        return base64.b64encode(v.value).decode()\n"
						   "    if isinstance(v, (set, frozenset)):\n"
						   "        return sorted(e if isinstance(e, str) else str(show(e)) for e in v)\n"
						   "    raise TypeError(type(v))\n\n\n");
	appendStringInfoString(&b, "table = boto3.resource(\"dynamodb\", endpoint_url=os.environ.get(\"DYNAMODB_ENDPOINT\")).Table(");
	escape_json(&b, x->table);
	appendStringInfoString(&b, ")\nparams = json.loads(");
	escape_json(&b, plain_members(x));
	appendStringInfoString(&b, ")\nparams.pop(\"TableName\", None)\n");
	if (vals && vals->type == jbvBinary)
	{
		appendStringInfoString(&b, "params[\"ExpressionAttributeValues\"] = ");
		append_value_map(&b, x, vals, false);
		appendStringInfoChar(&b, '\n');
	}
	if (key && key->type == jbvBinary)
	{
		appendStringInfoString(&b, "params[\"Key\"] = ");
		append_value_map(&b, x, key, true);
		appendStringInfoChar(&b, '\n');
	}
	if (strcmp(x->op, "GetItem") == 0)
		appendStringInfoString(&b, "item = table.get_item(**params).get(\"Item\")\n"
							   "if item is not None:\n"
							   "    print(json.dumps(item, default=show))\n");
	else
		appendStringInfo(&b, "while True:\n"
						 "    page = table.%s(**params)\n"
						 "    for item in page.get(\"Items\", []):\n"
						 "        print(json.dumps(item, default=show))\n"
						 "    if \"LastEvaluatedKey\" not in page:\n"
						 "        break\n"
						 "    params[\"ExclusiveStartKey\"] = page[\"LastEvaluatedKey\"]\n", method);
	return b.data;
}

/* The stored (plain JSON) form of an AttributeValue map, composed members replaced, as SQL */
static void
append_sql_values(StringInfo b, Export *x, JsonbValue *vals)
{
	Jsonb	   *stored = st_attrval_map_to_stored(vals, ST_AV_VALUES, NULL);

	appendStringInfo(b, "%s::jsonb", quote_literal_cstr(JsonbToCString(NULL, &stored->root, VARSIZE(stored))));
	for (int i = 0; i < x->n_composed; i++)
		if (!x->composed[i].in_key)
		{
			appendStringInfo(b, "\n           || jsonb_build_object(%s, ", quote_literal_cstr(x->composed[i].placeholder));
			append_composed(b, x, &x->composed[i]);
			appendStringInfoChar(b, ')');
		}
}

/* A key attribute's value as get_item takes it (text), composed when it is */
static void
append_sql_key(StringInfo b, Export *x, JsonbValue *key, const char *attr)
{
	Composed   *c = composed_for(x, attr, true);
	JsonbValue *av = getKeyJsonValueFromContainer(key->val.binary.data, attr, strlen(attr), NULL);
	JsonbIterator *it;
	JsonbValue	k,
				v;

	if (c)
	{
		append_composed(b, x, c);
		return;
	}
	if (av == NULL || av->type != jbvBinary)
	{
		appendStringInfoString(b, "NULL");
		return;
	}
	/* {"S": "..."}, {"N": "..."}, {"B": "..."}: the text of the one member */
	it = JsonbIteratorInit(av->val.binary.data);
	if (st_jbv_next_member(&it, &k, &v) && v.type == jbvString)
		appendStringInfoString(b, quote_literal_cstr(pnstrdup(v.val.string.val, v.val.string.len)));
	else
		appendStringInfoString(b, "NULL");
}

static void
sql_arg_text(StringInfo b, Export *x, const char *member_name, const char *arg)
{
	char	   *s = member_string(x->request, member_name);

	if (s)
		appendStringInfo(b, ",\n         %s => %s", arg, quote_literal_cstr(s));
}

static char *
program_sql(Export *x)
{
	StringInfoData b;
	JsonbValue *names = member(x->request, "ExpressionAttributeNames");
	JsonbValue *vals = member(x->request, "ExpressionAttributeValues");
	JsonbValue *fwd = member(x->request, "ScanIndexForward");
	JsonbValue *cr = member(x->request, "ConsistentRead");

	initStringInfo(&b);
	header(&b, x, "--");
	appendStringInfoString(&b, "-- A psql script: psql -v name=value sets an input.\n");
	for (int i = 0; i < x->n_inputs; i++)
		appendStringInfo(&b, "\\if :{?%s}\n\\else\n\\set %s %s\n\\endif\n", x->inputs[i].name,
						 x->inputs[i].name, quote_literal_cstr(x->inputs[i].value));
	if (strcmp(x->op, "GetItem") == 0)
	{
		JsonbValue *key = member(x->request, "Key");

		appendStringInfo(&b, "SELECT item FROM singletable.get_item(%s, ", quote_literal_cstr(x->sql_table));
		append_sql_key(&b, x, key, x->tab->pk_name);
		appendStringInfoString(&b, ", ");
		if (x->tab->sk_name)
			append_sql_key(&b, x, key, x->tab->sk_name);
		else
			appendStringInfoString(&b, "NULL");
		sql_arg_text(&b, x, "ProjectionExpression", "projection");
		if (names && names->type == jbvBinary)
			appendStringInfo(&b, ",\n         names => %s::jsonb",
							 quote_literal_cstr(JsonbToCString(NULL, names->val.binary.data, names->val.binary.len)));
		if (cr && cr->type == jbvBool)
			appendStringInfo(&b, ",\n         consistent_read => %s", cr->val.boolean ? "true" : "false");
		appendStringInfoString(&b, ") AS item WHERE item IS NOT NULL;\n");
		return b.data;
	}
	appendStringInfo(&b, "SELECT item FROM singletable.%s(%s", strcmp(x->op, "Query") == 0 ? "query" : "scan",
					 quote_literal_cstr(x->sql_table));
	sql_arg_text(&b, x, "KeyConditionExpression", "key_condition");
	sql_arg_text(&b, x, "FilterExpression", "filter");
	sql_arg_text(&b, x, "ProjectionExpression", "projection");
	sql_arg_text(&b, x, "IndexName", "index_name");
	if (names && names->type == jbvBinary)
		appendStringInfo(&b, ",\n         names => %s::jsonb",
						 quote_literal_cstr(JsonbToCString(NULL, names->val.binary.data, names->val.binary.len)));
	if (vals && vals->type == jbvBinary)
	{
		appendStringInfoString(&b, ",\n         vals => ");
		append_sql_values(&b, x, vals);
	}
	if (fwd && fwd->type == jbvBool && strcmp(x->op, "Query") == 0)
		appendStringInfo(&b, ",\n         forward => %s", fwd->val.boolean ? "true" : "false");
	if (cr && cr->type == jbvBool)
		appendStringInfo(&b, ",\n         consistent_read => %s", cr->val.boolean ? "true" : "false");
	appendStringInfoString(&b, ");\n");
	return b.data;
}

/* singletable.export_code(table_name, request, language, operation) -> text */
Datum
singletable_export_code(PG_FUNCTION_ARGS)
{
	Export		x;
	char	   *lang;
	JsonbValue *given;
	const char *op = NULL;

	memset(&x, 0, sizeof(x));
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be NULL", PG_ARGISNULL(0) ? "table_name" : PG_ARGISNULL(1) ? "request" : "language")));
	x.table = text_to_cstring(PG_GETARG_TEXT_PP(0));
	x.request = PG_GETARG_JSONB_P(1);
	lang = text_to_cstring(PG_GETARG_TEXT_PP(2));
	if (strcmp(lang, "javascript") == 0)
		x.lang = LANG_JS;
	else if (strcmp(lang, "python") == 0)
		x.lang = LANG_PY;
	else if (strcmp(lang, "sql") == 0)
		x.lang = LANG_SQL;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("language must be javascript, python or sql, not \"%s\"", lang)));
	if (!JB_ROOT_IS_OBJECT(x.request))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("request must be a JSON object: a DynamoDB request document")));
	if (!PG_ARGISNULL(3))
		op = text_to_cstring(PG_GETARG_TEXT_PP(3));
	x.op = op ? op : st_ddb_infer_operation(x.request);
	if (strcmp(x.op, "Query") != 0 && strcmp(x.op, "Scan") != 0 && strcmp(x.op, "GetItem") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("export_code writes programs of Query, Scan and GetItem, not of \"%s\"", x.op)));
	given = member(x.request, "TableName");
	if (given && (given->type != jbvString || given->val.string.len != (int) strlen(x.table) ||
				  memcmp(given->val.string.val, x.table, strlen(x.table)) != 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the request's TableName is not table_name \"%s\"", x.table)));
	{
		JsonbValue	tv;
		const char *names[1] = {"TableName"};
		JsonbValue *vals[1] = {&tv};

		st_jbv_string(&tv, x.table);
		x.request = st_ddb_with_members(x.request, names, vals, 1);
	}

	/* a request DynamoDB or the registry refuses is not written into a program */
	(void) st_ddb_run_rolled_back(x.op, x.request, true);

	x.sql_table = text_to_cstring(st_ddb_table_text(x.table));
	x.tab = st_table_open(st_ddb_table_text(x.table), AccessShareLock, ACL_SELECT);
	initStringInfo(&x.notes);
	find_key_values(&x);
	PG_RETURN_TEXT_P(cstring_to_text(x.lang == LANG_JS ? program_js(&x) :
									 x.lang == LANG_PY ? program_py(&x) : program_sql(&x)));
}
