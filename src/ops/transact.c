/*
 * transact.c — DynamoDB's transactions: singletable.transact_write
 * (TransactWriteItems), singletable.transact_get (TransactGetItems) and
 * singletable.cancellation_reasons(), operations and SQL wrappers.
 *
 * A transact_write call runs in one SPI connection, in the caller's
 * transaction, in these steps; the first error of a step wins, and nothing
 * is locked or written before the last checks have passed:
 *
 * Design notes: the section on transact.c in README.md of this folder.
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/lock.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "ops/capacity.h"
#include "utils/errors.h"
#include "ops/expr_glue.h"
#include "ops/hot_keys.h"
#include "ops/item.h"
#include "format/jsonpush.h"
#include "format/jsonval.h"
#include "ops/ops.h"
#include "ops/read_internal.h"
#include "ops/tokens.h"
#include "ops/transact.h"
#include "ops/ttl.h"
#include "ops/write_internal.h"

PG_FUNCTION_INFO_V1(singletable_transact_write);
PG_FUNCTION_INFO_V1(singletable_transact_get);
PG_FUNCTION_INFO_V1(singletable_cancellation_reasons);

typedef enum ActionKind
{
	ACT_PUT,
	ACT_UPDATE,
	ACT_DELETE,
	ACT_CHECK,
	ACT_GET,
	NUM_KINDS
} ActionKind;

/* DynamoDB's name of each action, and of its member in DynamoDB's error paths */
static const char *const kind_names[NUM_KINDS] = {"Put", "Update", "Delete", "ConditionCheck", "Get"};
static const char *const kind_paths[NUM_KINDS] = {"put", "update", "delete", "conditionCheck", "get"};

/* The members of an action */
typedef enum Member
{
	M_TABLE,
	M_ITEM,
	M_KEY,
	M_UPDATE,
	M_CONDITION,
	M_NAMES,
	M_VALUES,
	M_RETURN,
	M_PROJECTION,
	NUM_MEMBERS
} Member;

static const char *const member_names[NUM_MEMBERS] = {
	"TableName", "Item", "Key", "UpdateExpression", "ConditionExpression",
	"ExpressionAttributeNames", "ExpressionAttributeValues",
	"ReturnValuesOnConditionCheckFailure", "ProjectionExpression"
};
static const char *const member_paths[NUM_MEMBERS] = {
	"tableName", "item", "key", "updateExpression", "conditionExpression",
	"expressionAttributeNames", "expressionAttributeValues",
	"returnValuesOnConditionCheckFailure", "projectionExpression"
};

/* Whether a member's value is a JSON object (else a string) */
#define MEMBER_IS_OBJECT(m) ((m) == M_ITEM || (m) == M_KEY || (m) == M_NAMES || (m) == M_VALUES)

#define BIT(m) (1 << (m))
#define WRITE_MEMBERS (BIT(M_TABLE) | BIT(M_CONDITION) | BIT(M_NAMES) | BIT(M_VALUES) | BIT(M_RETURN))

/* The members each action may have, and must have */
static const int allowed_members[NUM_KINDS] = {
	[ACT_PUT] = WRITE_MEMBERS | BIT(M_ITEM),
	[ACT_UPDATE] = WRITE_MEMBERS | BIT(M_KEY) | BIT(M_UPDATE),
	[ACT_DELETE] = WRITE_MEMBERS | BIT(M_KEY),
	[ACT_CHECK] = WRITE_MEMBERS | BIT(M_KEY),
	[ACT_GET] = BIT(M_TABLE) | BIT(M_KEY) | BIT(M_PROJECTION) | BIT(M_NAMES)
};
static const int required_members[NUM_KINDS] = {
	[ACT_PUT] = BIT(M_TABLE) | BIT(M_ITEM),
	[ACT_UPDATE] = BIT(M_TABLE) | BIT(M_KEY) | BIT(M_UPDATE),
	[ACT_DELETE] = BIT(M_TABLE) | BIT(M_KEY),
	[ACT_CHECK] = BIT(M_TABLE) | BIT(M_KEY) | BIT(M_CONDITION),
	[ACT_GET] = BIT(M_TABLE) | BIT(M_KEY)
};

/* An action's CancellationReason */
typedef enum ReasonCode
{
	RC_NONE,
	RC_CONDITION,				/* ConditionalCheckFailed */
	RC_VALIDATION				/* ValidationError */
} ReasonCode;

static const char *const reason_codes[] = {"None", "ConditionalCheckFailed", "ValidationError"};

/* The table names of a request, one per distinct name */
typedef struct TableRef
{
	text	   *name;
	int			first;			/* the first action that names it */
	AclMode		rights;			/* what its actions need */
	StTable    *tab;
	struct TableRef *leader;	/* the first name of the same table */
	int			cap;			/* its table's StCapacity */
} TableRef;

typedef struct Action
{
	int			n;				/* 1-based position, as DynamoDB numbers members */
	ActionKind	kind;
	/* the request */
	text	   *table_name;
	Jsonb	   *item;			/* Put */
	Jsonb	   *key;			/* the others */
	char	   *update;			/* Update */
	StExprText	expr;			/* condition, names, vals */
	char	   *projection;		/* Get */
	bool		return_old;		/* ReturnValuesOnConditionCheckFailure ALL_OLD */
	/* its table, expressions and key */
	TableRef   *ref;
	StTable    *tab;
	int			cap;
	StNode	   *cond;
	StUpdate   *upd;
	StProjection *proj;
	StItem		put;			/* Put: the item, checked */
	StKey		pk;
	StKey		sk;
	Datum		values[3];		/* the single-item statements' parameters */
	char		nulls[3];
	uint64		lock;			/* the key of its advisory lock */
	/* the item, locked and read (or read), and the checks */
	Jsonb	   *current;
	ReasonCode	reason;
	char	   *message;		/* ValidationError's */
	char	   *errmsg;			/* ValidationError's: the error's own errmsg */
	bool		writes;			/* Put; an Update that writes; a Delete of an item */
	StItem		updated;		/* Update: the new item */
} Action;

/* The reasons of this session's last cancelled transaction (TopMemoryContext), and whose */
static Jsonb *last_reasons = NULL;
static Oid	last_reasons_user = InvalidOid;

/* Forgets the reasons of an earlier cancellation (every transact_write starts so). */
static void
reasons_reset(void)
{
	if (last_reasons)
		pfree(last_reasons);
	last_reasons = NULL;
	last_reasons_user = InvalidOid;
}

Jsonb *
st_cancellation_reasons(void)
{
	Jsonb	   *copy;

	if (last_reasons == NULL || last_reasons_user != GetUserId())
		return NULL;
	copy = palloc(VARSIZE(last_reasons));
	memcpy(copy, last_reasons, VARSIZE(last_reasons));
	return copy;
}

/* CONTEXT of an error while an action is checked: which action, of which table */
static void
action_context(void *arg)
{
	Action	   *a = (Action *) arg;

	errcontext("action %d of transact_items (%s on table \"%s\")", a->n, kind_names[a->kind],
			   text_to_cstring(a->table_name));
}

#define ACTION_CONTEXT_PUSH(cb, a) \
	do { (cb).callback = action_context; (cb).arg = (a); (cb).previous = error_context_stack; \
		 error_context_stack = &(cb); } while (0)
#define ACTION_CONTEXT_POP(cb) (error_context_stack = (cb).previous)

/* ---------------------------------------------------------------- shape */

/* Checks transact_items as a list of actions; returns how many. */
static int
check_list(Jsonb *items, bool get)
{
	const char *actions = get ? "Get" : "Put, Update, Delete or ConditionCheck";
	int			n;

	if (items == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("transact_items must not be NULL")));
	if (!JB_ROOT_IS_ARRAY(items) || JB_ROOT_IS_SCALAR(items))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("transact_items must be a JSON array of actions"),
				 errhint("Each action is an object with one member, %s: [{\"%s\": {\"TableName\": ...}}].",
						 actions, get ? "Get" : "Put")));
	n = JB_ROOT_COUNT(items);
	if (n < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("transact_items must not be empty"),
				 st_errdetail_dynamodb("1 validation error detected: Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1")));
	if (n > ST_TRANSACT_MAX_ACTIONS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("transact_items has %d actions, more than the limit of %d", n, ST_TRANSACT_MAX_ACTIONS),
				 st_errdetail_dynamodb("1 validation error detected: Value '[...]' at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to %d",
									   ST_TRANSACT_MAX_ACTIONS)));
	return n;
}

/* The JsonbValue v (an object member) as a jsonb of its own. */
static Jsonb *
value_jsonb(JsonbValue *v)
{
	return JsonbValueToJsonb(v);
}

/* Stores member m (value v, not null) of action a, checked for its JSON type. */
static void
set_member(Action *a, Member m, JsonbValue *v)
{
	bool		is_object = v->type == jbvBinary && JsonContainerIsObject(v->val.binary.data);
	char	   *s = NULL;

	if (MEMBER_IS_OBJECT(m) ? !is_object : v->type != jbvString)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s of %s action %d of transact_items must be a JSON %s",
						member_names[m], kind_names[a->kind], a->n, MEMBER_IS_OBJECT(m) ? "object" : "string")));
	if (!MEMBER_IS_OBJECT(m))
		s = pnstrdup(v->val.string.val, v->val.string.len);
	switch (m)
	{
		case M_TABLE:
			a->table_name = cstring_to_text_with_len(v->val.string.val, v->val.string.len);
			break;
		case M_ITEM:
			a->item = value_jsonb(v);
			break;
		case M_KEY:
			a->key = value_jsonb(v);
			break;
		case M_UPDATE:
			a->update = s;
			break;
		case M_CONDITION:
			a->expr.condition = s;
			break;
		case M_NAMES:
			a->expr.names = value_jsonb(v);
			break;
		case M_VALUES:
			a->expr.vals = value_jsonb(v);
			break;
		case M_RETURN:
			if (strcmp(s, "ALL_OLD") == 0)
				a->return_old = true;
			else if (strcmp(s, "NONE") != 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("ReturnValuesOnConditionCheckFailure of %s action %d of transact_items must be NONE or ALL_OLD, not \"%.100s\"",
								kind_names[a->kind], a->n, s),
						 st_errdetail_dynamodb("1 validation error detected: Value '%.100s' at 'transactItems.%d.member.%s.returnValuesOnConditionCheckFailure' failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, NONE]",
											   s, a->n, kind_paths[a->kind])));
			break;
		case M_PROJECTION:
			a->projection = s;
			break;
		case NUM_MEMBERS:
			break;
	}
}

/* Reads action i of transact_items into a, checking its shape. */
static void
parse_action(Jsonb *items, int i, bool get, Action *a)
{
	const char *actions = get ? "Get" : "Put, Update, Delete or ConditionCheck";
	JsonbValue *elem = getIthJsonbValueFromContainer(&items->root, i);
	JsonbIterator *it;
	JsonbValue	k,
				v;
	JsonbIteratorToken tok;
	int			seen = 0;
	int			missing;
	int			kind = -1;

	a->n = i + 1;
	if (elem->type != jbvBinary || !JsonContainerIsObject(elem->val.binary.data) ||
		JsonContainerSize(elem->val.binary.data) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("action %d of transact_items must be a JSON object with one member, %s", a->n, actions)));

	/* its one member: the kind of action */
	it = JsonbIteratorInit(elem->val.binary.data);
	(void) JsonbIteratorNext(&it, &k, true);	/* WJB_BEGIN_OBJECT */
	(void) JsonbIteratorNext(&it, &k, true);
	(void) JsonbIteratorNext(&it, &v, true);
	for (int kd = get ? ACT_GET : ACT_PUT; kd < (get ? NUM_KINDS : ACT_GET); kd++)
		if ((int) strlen(kind_names[kd]) == k.val.string.len &&
			memcmp(kind_names[kd], k.val.string.val, k.val.string.len) == 0)
			kind = kd;
	if (kind < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("action %d of transact_items is \"%.*s\", not %s",
						a->n, Min(k.val.string.len, 100), k.val.string.val, actions)));
	a->kind = (ActionKind) kind;
	if (v.type != jbvBinary || !JsonContainerIsObject(v.val.binary.data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s of action %d of transact_items must be a JSON object", kind_names[kind], a->n)));

	/* its members */
	it = JsonbIteratorInit(v.val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		JsonbValue	mv;
		int			m = -1;

		if (tok != WJB_KEY)
			continue;
		(void) JsonbIteratorNext(&it, &mv, true);
		for (int j = 0; j < NUM_MEMBERS; j++)
			if ((allowed_members[kind] & BIT(j)) && (int) strlen(member_names[j]) == k.val.string.len &&
				memcmp(member_names[j], k.val.string.val, k.val.string.len) == 0)
				m = j;
		if (m < 0)
		{
			StringInfoData list;

			initStringInfo(&list);
			for (int j = 0; j < NUM_MEMBERS; j++)
				if (allowed_members[kind] & BIT(j))
					appendStringInfo(&list, "%s%s", list.len ? ", " : "", member_names[j]);
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s action %d of transact_items has no member \"%.*s\"",
							kind_names[kind], a->n, Min(k.val.string.len, 100), k.val.string.val),
					 errhint("The members of %s are %s.", kind_names[kind], list.data)));
		}
		/* JSON null: not given */
		if (mv.type == jbvNull)
			continue;
		set_member(a, (Member) m, &mv);
		seen |= BIT(m);
	}
	missing = required_members[kind] & ~seen;
	for (int j = 0; j < NUM_MEMBERS; j++)
		if (missing & BIT(j))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s action %d of transact_items lacks %s", kind_names[kind], a->n, member_names[j]),
					 st_errdetail_dynamodb("1 validation error detected: Value null at 'transactItems.%d.member.%s.%s' failed to satisfy constraint: Member must not be null",
										   a->n, kind_paths[kind], member_paths[j])));
}

/* ---------------------------------------------------------------- expressions */

/*
 * Parses the expressions of a with the key rules of tab; with tab NULL
 * without any table (syntax and placeholders only), the results dropped.
 */
static void
parse_expressions(Action *a, StTable *tab)
{
	StTable		none;
	StTable    *t = tab;
	StNode	   *cond = NULL;
	StUpdate   *upd = NULL;
	StProjection *proj = NULL;

	if (t == NULL)
	{
		/* no key attributes: st_env_build reads nothing else of the table */
		memset(&none, 0, sizeof(none));
		t = &none;
	}
	switch (a->kind)
	{
		case ACT_PUT:
		case ACT_DELETE:
		case ACT_CHECK:
			cond = st_write_parse_condition(t, &a->expr);
			break;
		case ACT_UPDATE:
			upd = st_write_parse_update(t, a->update, &a->expr, &cond);
			break;
		case ACT_GET:
			if (a->projection == NULL && a->expr.names != NULL)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("ExpressionAttributeNames can only be given with a ProjectionExpression"),
						 st_errdetail_dynamodb("ExpressionAttributeNames can only be specified when using expressions")));
			if (a->projection)
			{
				StExprEnv  *env = st_env_build(t, a->expr.names, NULL);

				proj = st_parse_projection(a->projection, env);
				st_expr_check_unused(env);
			}
			break;
		case NUM_KINDS:
			break;
	}
	if (tab)
	{
		a->cond = cond;
		a->upd = upd;
		a->proj = proj;
	}
}

/* ---------------------------------------------------------------- tables */

/* The privileges an action needs on its table (its item is locked FOR UPDATE: UPDATE). */
static AclMode
kind_rights(ActionKind k)
{
	switch (k)
	{
		case ACT_PUT:
		case ACT_UPDATE:
			return ACL_SELECT | ACL_INSERT | ACL_UPDATE;
		case ACT_DELETE:
			return ACL_SELECT | ACL_UPDATE | ACL_DELETE;
		case ACT_CHECK:
			return ACL_SELECT | ACL_UPDATE;
		case ACT_GET:
		case NUM_KINDS:
			break;
	}
	return ACL_SELECT;
}

/* Orders actions by table name (bytes), then position. */
static int
cmp_table_name(const void *x, const void *y)
{
	const Action *a = *(Action *const *) x;
	const Action *b = *(Action *const *) y;
	int			la = VARSIZE_ANY_EXHDR(a->table_name);
	int			lb = VARSIZE_ANY_EXHDR(b->table_name);
	int			c = memcmp(VARDATA_ANY(a->table_name), VARDATA_ANY(b->table_name), Min(la, lb));

	if (c != 0)
		return c;
	if (la != lb)
		return la < lb ? -1 : 1;
	return a->n - b->n;
}

/* Whether two actions name their table alike. */
static bool
same_table_name(const Action *a, const Action *b)
{
	return VARSIZE_ANY_EXHDR(a->table_name) == VARSIZE_ANY_EXHDR(b->table_name) &&
		memcmp(VARDATA_ANY(a->table_name), VARDATA_ANY(b->table_name),
			   VARSIZE_ANY_EXHDR(a->table_name)) == 0;
}

/* Orders table names by their first action. */
static int
cmp_ref_first(const void *x, const void *y)
{
	const TableRef *a = *(TableRef *const *) x;
	const TableRef *b = *(TableRef *const *) y;

	return a->first - b->first;
}

/* Orders table names by table, then first action. */
static int
cmp_ref_table(const void *x, const void *y)
{
	const TableRef *a = *(TableRef *const *) x;
	const TableRef *b = *(TableRef *const *) y;

	if (a->tab->relid != b->tab->relid)
		return a->tab->relid < b->tab->relid ? -1 : 1;
	return a->first - b->first;
}

/*
 * Opens the table of every action: each distinct name once, in the order
 * the request first names them, with the privileges all its actions need,
 * checked before the table is locked. One StCapacity per table (two names
 * of one table share it), in that order; returns how many, in *capsp.
 */
static int
open_tables(Action *acts, int n, bool get, StCapacity **capsp)
{
	Action	  **byname = palloc(sizeof(Action *) * n);
	TableRef  **refs = palloc(sizeof(TableRef *) * n);
	TableRef  **bytable;
	StCapacity *caps;
	int			nrefs = 0;
	int			ncaps = 0;

	for (int i = 0; i < n; i++)
		byname[i] = &acts[i];
	qsort(byname, n, sizeof(Action *), cmp_table_name);
	for (int i = 0; i < n; i++)
	{
		Action	   *a = byname[i];

		if (i == 0 || !same_table_name(byname[i - 1], a))
		{
			TableRef   *r = palloc0(sizeof(TableRef));

			r->name = a->table_name;
			r->first = a->n;
			refs[nrefs++] = r;
		}
		a->ref = refs[nrefs - 1];
		a->ref->rights |= kind_rights(a->kind);
	}
	qsort(refs, nrefs, sizeof(TableRef *), cmp_ref_first);
	for (int i = 0; i < nrefs; i++)
	{
		ErrorContextCallback cb;

		CHECK_FOR_INTERRUPTS();
		ACTION_CONTEXT_PUSH(cb, &acts[refs[i]->first - 1]);
		refs[i]->tab = st_table_open(refs[i]->name, get ? AccessShareLock : RowExclusiveLock,
									 refs[i]->rights);
		ACTION_CONTEXT_POP(cb);
	}

	/* the first name of each table leads the others of it */
	bytable = palloc(sizeof(TableRef *) * nrefs);
	memcpy(bytable, refs, sizeof(TableRef *) * nrefs);
	qsort(bytable, nrefs, sizeof(TableRef *), cmp_ref_table);
	for (int i = 0; i < nrefs; i++)
		bytable[i]->leader = (i > 0 && bytable[i - 1]->tab->relid == bytable[i]->tab->relid)
			? bytable[i - 1]->leader : bytable[i];
	caps = palloc(sizeof(StCapacity) * nrefs);
	for (int i = 0; i < nrefs; i++)
	{
		TableRef   *r = refs[i];

		/* a leader comes first among the names of its table */
		if (r->leader == r)
		{
			r->cap = ncaps++;
			st_capacity_begin(&caps[r->cap], r->tab, get ? ST_STAT_TRANSACT_GET_ITEMS : ST_STAT_TRANSACT_WRITE_ITEMS);
			st_capacity_set_transactional(&caps[r->cap]);
		}
		else
			r->cap = r->leader->cap;
	}
	for (int i = 0; i < n; i++)
	{
		acts[i].tab = acts[i].ref->tab;
		acts[i].cap = acts[i].ref->cap;
	}
	*capsp = caps;
	return ncaps;
}

/* ---------------------------------------------------------------- keys */

static char *dynamodb_message(ErrorData *edata);

/* The error of a Key that does not name exactly the table's key attributes. */
static void
key_mismatch(Action *a, const char *why) pg_attribute_noreturn();

static void
key_mismatch(Action *a, const char *why)
{
	StTable    *tab = a->tab;

	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("Key of %s action %d of transact_items for table \"%s\" %s",
					kind_names[a->kind], a->n, tab->relname, why),
			 st_errdetail_dynamodb("The provided key element does not match the schema"),
			 tab->sk_name
			 ? errhint("A Key is an object with exactly the key attributes \"%s\" and \"%s\".",
					   tab->pk_name, tab->sk_name)
			 : errhint("A Key is an object with exactly the key attribute \"%s\".", tab->pk_name)));
}

/* Converts key attribute name of the Key map to its column value. */
static void
key_attr(Action *a, StVal *map, const char *name, StKeyType kt, bool is_sort, StKey *out)
{
	StVal	   *v = st_val_map_get(map, name, strlen(name));
	const char *data;
	int			len;

	if (v == NULL)
		key_mismatch(a, psprintf("lacks key attribute \"%s\"", name));
	if (!((kt == ST_KEY_S && v->type == SV_S) || (kt == ST_KEY_N && v->type == SV_N) ||
		  (kt == ST_KEY_B && (v->type == SV_B || v->type == SV_S))))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("key attribute \"%s\" of table \"%s\" must be of type %c, not %s",
						name, a->tab->relname, (char) kt, st_val_type_name(v->type)),
				 st_errdetail_dynamodb("The provided key element does not match the schema")));
	if (kt == ST_KEY_B && v->type == SV_B)
		data = st_base64_encode(v->u.str.data, v->u.str.len, &len);
	else
	{
		data = v->u.str.data;
		len = v->u.str.len;
	}
	st_key_from_text(kt, data, len, name, a->tab->relname, is_sort, out);
}

/* Converts the Key of a to its key columns; returns DynamoDB's size of the key. */
static int64
key_from_map(Action *a)
{
	StTable    *tab = a->tab;
	int			nkeys = tab->sk_name ? 2 : 1;
	bool		canonical;
	StVal	   *map;

	/* a key has one or two attributes: refuse anything larger before converting it */
	if (JB_ROOT_COUNT(a->key) != nkeys)
		key_mismatch(a, psprintf("has %u attributes, not the %d key attribute%s",
								 JB_ROOT_COUNT(a->key), nkeys, nkeys > 1 ? "s" : ""));
	map = st_jsonb_to_val(a->key, "Key", &canonical);
	key_attr(a, map, tab->pk_name, tab->pk_type, false, &a->pk);
	if (tab->sk_name)
	{
		key_attr(a, map, tab->sk_name, tab->sk_type, true, &a->sk);
		st_key_check_combined(&a->pk, &a->sk, tab->relname);
	}
	return strlen(tab->pk_name) + a->pk.nbytes +
		(tab->sk_name ? strlen(tab->sk_name) + a->sk.nbytes : 0);
}

/* A copy of key k in the current memory context. */
static StKey
copy_key(const StKey *k)
{
	StKey		c = *k;

	c.datum = datumCopy(k->datum, false, -1);
	c.display = pstrdup(k->display);
	return c;
}

/* The key of an item's advisory lock: a 64-bit hash of (table OID, key). */
static uint64
item_lock_key(Action *a)
{
	uint64		h = hash_bytes_extended((const unsigned char *) a->pk.display,
										strlen(a->pk.display), a->tab->relid);

	if (a->tab->sk_name)
		h = hash_combine64(h, hash_bytes_extended((const unsigned char *) a->sk.display,
												  strlen(a->sk.display), a->tab->relid));
	return h;
}

/*
 * Step 4: every action's expressions with its table's key rules, its item
 * (Put) or key, its statement parameters and lock key; the items (Put) and
 * the keys and values (the others) together within 4 MB, refused as soon
 * as they exceed it.
 */
static void
prepare_keys(Action *acts, int n, MemoryContext scratch)
{
	MemoryContext cxt = CurrentMemoryContext;
	volatile int64 total = 0;

	for (int i = 0; i < n; i++)
	{
		Action	   *a = &acts[i];
		StTable    *tab = a->tab;
		ErrorContextCallback cb;
		int64		size;

		CHECK_FOR_INTERRUPTS();
		ACTION_CONTEXT_PUSH(cb, a);
		parse_expressions(a, tab);

		/*
		 * what the checks convert is dropped; the item and key are copied
		 * out. An invalid key or item (a ValidationException) is the action's
		 * ValidationError reason: DynamoDB cancels the transaction ("a user
		 * error, such as an invalid data format"). Catching without a
		 * subtransaction is safe as in make_update: the conversion only
		 * computes, in scratch.
		 */
		MemoryContextSwitchTo(scratch);
		PG_TRY();
		{
			if (a->kind == ACT_PUT)
			{
				st_item_prepare(tab, a->item, &a->put);
				size = a->put.size;
			}
			else
			{
				size = key_from_map(a);
				if (a->kind == ACT_UPDATE && a->expr.vals)
					size += st_item_size(a->expr.vals);
			}
		}
		PG_CATCH();
		{
			ErrorData  *edata;

			MemoryContextSwitchTo(cxt);
			edata = CopyErrorData();
			if (strcmp(st_dynamodb_exception(edata->sqlerrcode), ST_EXC_VALIDATION) != 0)
				PG_RE_THROW();
			FlushErrorState();
			a->reason = RC_VALIDATION;
			a->message = dynamodb_message(edata);
			a->errmsg = pstrdup(edata->message);
			size = 0;
		}
		PG_END_TRY();
		MemoryContextSwitchTo(cxt);
		if (a->reason == RC_VALIDATION)
		{
			MemoryContextReset(scratch);
			ACTION_CONTEXT_POP(cb);
			continue;
		}
		if (a->kind == ACT_PUT)
		{
			a->put.jsonb = DatumGetJsonbPCopy(JsonbPGetDatum(a->put.jsonb));
			a->put.val = NULL;
			a->pk = a->put.pk;
			a->sk = a->put.sk;
		}
		a->pk = copy_key(&a->pk);
		if (tab->sk_name)
			a->sk = copy_key(&a->sk);
		a->put.pk = a->pk;
		a->put.sk = a->sk;
		MemoryContextReset(scratch);
		st_write_key_params(tab, &a->pk, &a->sk, a->values, a->nulls);
		a->lock = item_lock_key(a);
		ACTION_CONTEXT_POP(cb);
		total += size;
		if (total > ST_TRANSACT_MAX_BYTES)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("the items of transact_items are more than %d bytes together, reached at action %d",
							ST_TRANSACT_MAX_BYTES, a->n),
					 st_errdetail_dynamodb("The aggregate size of the items in the transaction exceeds 4 MB.")));
	}
}

/* Orders actions canonically: by lock key, then table and key; equal items end at position. */
static int
cmp_lock_order(const void *x, const void *y)
{
	const Action *a = *(Action *const *) x;
	const Action *b = *(Action *const *) y;
	int			c;

	if (a->lock != b->lock)
		return a->lock < b->lock ? -1 : 1;
	if (a->tab->relid != b->tab->relid)
		return a->tab->relid < b->tab->relid ? -1 : 1;
	if ((c = strcmp(a->pk.display, b->pk.display)) != 0)
		return c;
	if (a->tab->sk_name && (c = strcmp(a->sk.display, b->sk.display)) != 0)
		return c;
	return a->n - b->n;
}

/* Whether two actions name the same item. */
static bool
same_item(const Action *a, const Action *b)
{
	return a->tab->relid == b->tab->relid && strcmp(a->pk.display, b->pk.display) == 0 &&
		(a->tab->sk_name == NULL || strcmp(a->sk.display, b->sk.display) == 0);
}

/*
 * Step 5: the actions in the canonical order of their locks; refuses a
 * request with two actions on one item (DynamoDB refuses the whole request).
 */
static Action **
lock_order(Action *acts, int n)
{
	Action	  **order = palloc(sizeof(Action *) * n);

	for (int i = 0; i < n; i++)
		order[i] = &acts[i];
	qsort(order, n, sizeof(Action *), cmp_lock_order);
	for (int i = 1; i < n; i++)
		if (same_item(order[i - 1], order[i]))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("actions %d and %d of transact_items are on the same item of table \"%s\"",
							order[i - 1]->n, order[i]->n, order[i]->tab->relname),
					 st_errdetail_dynamodb("Transaction request cannot include multiple operations on one item"),
					 errhint("Combine what they do into one action: an Update can both check a condition and change the item.")));
	return order;
}

/* ---------------------------------------------------------------- checks */

/* DynamoDB's message of an error (the message of its DETAIL body), else its errmsg */
static char *
dynamodb_message(ErrorData *edata)
{
	if (edata->detail && strncmp(edata->detail, "{\"__type\": ", 11) == 0)
	{
		Jsonb	   *body = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(edata->detail)));
		JsonbValue *m = getKeyJsonValueFromContainer(&body->root, "message", 7, NULL);

		if (m && m->type == jbvString)
			return pnstrdup(m->val.string.val, m->val.string.len);
	}
	return pstrdup(edata->message);
}

/*
 * The item a's update makes of its locked item. A validation error (class
 * ValidationException: an operand of the wrong type, a path that does not
 * exist, the item or an index key over its limit) becomes the action's
 * ValidationError reason; any other error is raised. Catching without a
 * subtransaction is safe here: making the item only computes (values,
 * jsonb, the item's checks), with no lock, buffer, file or SPI call that an
 * error would leave behind; what it allocated stays in the call's memory.
 */
static void
make_update(Action *a, MemoryContext scratch)
{
	MemoryContext cxt = CurrentMemoryContext;
	StVal	   *newval;

	MemoryContextSwitchTo(scratch);
	PG_TRY();
	{
		a->writes = st_write_update_item(a->tab, a->upd, &a->pk, &a->sk, a->current, &a->updated,
										 &newval);
		/* only the new item's jsonb and size are kept; the rest goes with scratch */
		MemoryContextSwitchTo(cxt);
		if (a->writes)
			a->updated.jsonb = DatumGetJsonbPCopy(JsonbPGetDatum(a->updated.jsonb));
		a->updated.val = NULL;
		memset(&a->updated.pk, 0, sizeof(StKey));
		memset(&a->updated.sk, 0, sizeof(StKey));
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		if (strcmp(st_dynamodb_exception(edata->sqlerrcode), ST_EXC_VALIDATION) != 0)
			PG_RE_THROW();
		FlushErrorState();
		a->reason = RC_VALIDATION;
		a->message = dynamodb_message(edata);
		a->errmsg = pstrdup(edata->message);
		a->writes = false;
	}
	PG_END_TRY();
}

/*
 * Checks action a on its locked item: its reason, and what it writes. What
 * the checks make in scratch is dropped (the new item of an update copied
 * out first).
 */
static void
check_action(Action *a, MemoryContext scratch)
{
	MemoryContext cxt = MemoryContextSwitchTo(scratch);
	bool		holds = st_write_condition_holds(a->tab, a->cond, a->current);

	MemoryContextSwitchTo(cxt);
	a->reason = RC_NONE;
	a->writes = false;
	if (!holds)
		a->reason = RC_CONDITION;
	else if (a->kind == ACT_PUT)
		a->writes = true;
	else if (a->kind == ACT_UPDATE)
		make_update(a, scratch);
	else if (a->kind == ACT_DELETE)
		a->writes = a->current != NULL;
	MemoryContextReset(scratch);
}

/*
 * Charges a write that wrote nothing, sized on the item current (NULL: 1
 * unit), the table part only: a ConditionCheck, and every action of a
 * cancelled transaction. failed: its condition failed (table_stats counts it).
 */
static void
charge_unwritten(StCapacity *cap, Jsonb *current, bool failed)
{
	/* st_capacity_write's charge of a failed condition, which also counts one */
	st_capacity_write(cap, current, NULL, 0, true);
	if (!failed && cap->enabled)
		cap->table.counts.condition_failures--;
}

/* Appends {"Code": ..., "Message": ...} of a's reason to a DETAIL's JSON text. */
static void
append_reason(StringInfo buf, Action *a)
{
	appendStringInfoString(buf, "{\"Code\": ");
	escape_json(buf, reason_codes[a->reason]);
	if (a->reason != RC_NONE)
	{
		appendStringInfoString(buf, ", \"Message\": ");
		escape_json(buf, a->reason == RC_CONDITION ? "The conditional request failed" : a->message);
	}
	appendStringInfoChar(buf, '}');
}

/* The CancellationReasons with their Items, as cancellation_reasons() returns them */
static Jsonb *
reasons_jsonb(Action *acts, int n)
{
	JsonbParseState *state = NULL;

	(void) pushJsonbValue(&state, WJB_BEGIN_ARRAY, NULL);
	for (int i = 0; i < n; i++)
	{
		Action	   *a = &acts[i];

		CHECK_FOR_INTERRUPTS();
		(void) pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
		st_push_string(&state, "Code", reason_codes[a->reason]);
		if (a->reason != RC_NONE)
			st_push_string(&state, "Message",
						a->reason == RC_CONDITION ? "The conditional request failed" : a->message);
		if (a->reason == RC_CONDITION && a->return_old && a->current)
			st_push_jsonb(&state, "Item", a->current);
		(void) pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	}
	return JsonbValueToJsonb(pushJsonbValue(&state, WJB_END_ARRAY, NULL));
}

/*
 * Cancels the transaction: charges every action as a write of nothing on
 * its item, keeps the reasons with their items for cancellation_reasons(),
 * and raises TransactionCanceled with the reasons, without items, in DETAIL.
 */
static void
cancel_transaction(Action *acts, int n, StCapacity *caps, int ncaps, bool get) pg_attribute_noreturn();

static void
cancel_transaction(Action *acts, int n, StCapacity *caps, int ncaps, bool get)
{
	StringInfoData codes;
	StringInfoData members;
	Jsonb	   *reasons;
	Action	   *first = NULL;
	int			failed = 0;

	for (int i = 0; !get && i < n; i++)
		charge_unwritten(&caps[acts[i].cap], acts[i].current, acts[i].reason == RC_CONDITION);
	st_capacity_end_many(caps, ncaps, true);

	reasons = reasons_jsonb(acts, n);
	reasons_reset();
	last_reasons = MemoryContextAlloc(TopMemoryContext, VARSIZE(reasons));
	memcpy(last_reasons, reasons, VARSIZE(reasons));
	last_reasons_user = GetUserId();

	initStringInfo(&codes);
	initStringInfo(&members);
	appendStringInfoString(&members, "\"CancellationReasons\": [");
	for (int i = 0; i < n; i++)
	{
		Action	   *a = &acts[i];

		appendStringInfo(&codes, "%s%s", i ? ", " : "", reason_codes[a->reason]);
		if (i)
			appendStringInfoString(&members, ", ");
		append_reason(&members, a);
		if (a->reason != RC_NONE)
		{
			failed++;
			if (first == NULL)
				first = a;
		}
	}
	appendStringInfoChar(&members, ']');
	Assert(first != NULL);
	ereport(ERROR,
			(errcode(ERRCODE_ST_TRANSACTION_CANCELED),
			 errmsg("transaction cancelled: %s action %d of transact_items on table \"%s\" %s%s",
					kind_names[first->kind], first->n, first->tab->relname,
					first->reason == RC_CONDITION ? "failed its condition" :
					psprintf("is invalid: %s", first->errmsg ? first->errmsg : first->message),
					failed > 1 ? psprintf(", and %d more action%s failed", failed - 1, failed > 2 ? "s" : "") : ""),
			 st_errdetail_dynamodb_members(members.data,
										   "Transaction cancelled, please refer cancellation reasons for specific reasons [%s]",
										   codes.data),
			 errhint("singletable.cancellation_reasons() returns the reasons, with the items of the failed conditions that asked for them (ReturnValuesOnConditionCheckFailure ALL_OLD).")));
	pg_unreachable();
}

/* ---------------------------------------------------------------- transact_write */

/* Takes the advisory lock of an item (see the file header), waiting for it. */
static void
lock_item(uint64 key)
{
	LOCKTAG		tag;

	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, (uint32) (key >> 32), (uint32) key, ST_LOCKTAG_ITEM);
	(void) LockAcquire(&tag, ExclusiveLock, false, false);
}

/*
 * Step 9: the writes, in action order. An insert that lost a race with a
 * single-item write locks and checks the item that write made; a reason
 * then cancels the transaction.
 */
static void
apply_writes(Action *acts, int n, StCapacity *caps, int ncaps, MemoryContext scratch)
{
	for (int i = 0; i < n; i++)
	{
		Action	   *a = &acts[i];

		CHECK_FOR_INTERRUPTS();
		switch (a->kind)
		{
			case ACT_PUT:
			case ACT_UPDATE:
				for (int attempt = 0; a->writes; attempt++)
				{
					StItem	   *item = a->kind == ACT_PUT ? &a->put : &a->updated;

					a->values[2] = JsonbPGetDatum(item->jsonb);
					a->nulls[2] = ' ';
					if (st_write_locked(a->tab, a->values, a->nulls, a->current != NULL, attempt))
						break;
					CHECK_FOR_INTERRUPTS();
					a->current = st_item_fetch(a->tab, ST_PLAN_LOCK, a->values, a->nulls, false);
					check_action(a, scratch);
					if (a->reason != RC_NONE)
						cancel_transaction(acts, n, caps, ncaps, false);
				}
				break;
			case ACT_DELETE:
				if (a->writes)
					st_write_run_plan(st_item_plan(a->tab, ST_PLAN_DELETE), a->values, a->nulls,
									  SPI_OK_DELETE_RETURNING);
				break;
			case ACT_CHECK:
			case ACT_GET:
			case NUM_KINDS:
				break;
		}
	}
}

/* Step 10: the capacity of the writes (see capacity.h), per table. */
static void
charge_writes(Action *acts, int n, StCapacity *caps, MemoryContext scratch)
{
	MemoryContext cxt = MemoryContextSwitchTo(scratch);

	for (int i = 0; i < n; i++)
	{
		Action	   *a = &acts[i];
		StCapacity *cap = &caps[a->cap];

		CHECK_FOR_INTERRUPTS();
		MemoryContextReset(scratch);
		st_hot_keys_record(a->tab, true, a->pk.display);
		switch (a->kind)
		{
			case ACT_PUT:
				st_capacity_write(cap, a->current, a->put.jsonb, a->put.size, false);
				break;
			case ACT_UPDATE:
				st_capacity_write(cap, a->current, a->writes ? a->updated.jsonb : NULL,
								  a->writes ? a->updated.size : 0, false);
				break;
			case ACT_DELETE:
				st_capacity_write(cap, a->current, NULL, 0, false);
				break;
			case ACT_CHECK:
				charge_unwritten(cap, a->current, false);
				break;
			case ACT_GET:
			case NUM_KINDS:
				break;
		}
	}
	MemoryContextSwitchTo(cxt);
	MemoryContextReset(scratch);
}

/*
 * Steps 1 to 4 of both operations: the actions of a request, their tables
 * and keys. scratch is for what one action's checks make and drop.
 */
static Action *
prepare(Jsonb *items, bool get, int n, MemoryContext scratch, StCapacity **capsp, int *ncapsp)
{
	Action	   *acts = palloc0(sizeof(Action) * n);
	MemoryContext cxt = CurrentMemoryContext;

	for (int i = 0; i < n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		parse_action(items, i, get, &acts[i]);
	}
	for (int i = 0; i < n; i++)
	{
		ErrorContextCallback cb;

		CHECK_FOR_INTERRUPTS();
		ACTION_CONTEXT_PUSH(cb, &acts[i]);
		MemoryContextSwitchTo(scratch);
		parse_expressions(&acts[i], NULL);
		MemoryContextSwitchTo(cxt);
		MemoryContextReset(scratch);
		ACTION_CONTEXT_POP(cb);
	}
	*ncapsp = open_tables(acts, n, get, capsp);
	prepare_keys(acts, n, scratch);
	/* an invalid key or item cancels the transaction, before any lock or read */
	for (int i = 0; i < n; i++)
		if (acts[i].reason == RC_VALIDATION)
			cancel_transaction(acts, n, *capsp, *ncapsp, get);
	return acts;
}

/* {"ConsumedCapacity": [...]}, or {} with track_capacity off */
static Jsonb *
write_response(void)
{
	JsonbParseState *state = NULL;
	Jsonb	   *cc = st_last_consumed_capacity();

	(void) pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	if (cc)
		st_push_jsonb(&state, "ConsumedCapacity", cc);
	return JsonbValueToJsonb(pushJsonbValue(&state, WJB_END_OBJECT, NULL));
}

Jsonb *
st_op_transact_write(Jsonb *items, const char *token, int token_len)
{
	MemoryContext callcxt = CurrentMemoryContext;
	int			n;
	Action	   *acts;
	Action	  **order;
	StCapacity *caps;
	int			ncaps;
	bytea	   *hash = NULL;
	Jsonb	   *response = NULL;
	bool		failed = false;
	bool		stopped = false;
	MemoryContext scratch;
	MemoryContext old;

	reasons_reset();
	n = check_list(items, false);
	if (token)
		st_token_validate(token, token_len);
	SPI_connect();
	scratch = AllocSetContextCreate(CurrentMemoryContext, "singletable transaction action",
									ALLOCSET_DEFAULT_SIZES);
	acts = prepare(items, false, n, scratch, &caps, &ncaps);
	order = lock_order(acts, n);

	if (token)
	{
		hash = st_token_request_hash(items);
		response = st_token_begin(token, token_len, hash);
		if (response)
		{
			/* a replay: the first call's response, nothing read or written */
			old = MemoryContextSwitchTo(callcxt);
			response = DatumGetJsonbPCopy(JsonbPGetDatum(response));
			MemoryContextSwitchTo(old);
			SPI_finish();
			return response;
		}
	}

	/* step 7: every lock in the canonical order, then every item locked and read */
	for (int i = 0; i < n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		lock_item(order[i]->lock);
	}
	for (int i = 0; i < n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		order[i]->current = st_item_fetch(order[i]->tab, ST_PLAN_LOCK, order[i]->values,
										  order[i]->nulls, false);
	}

	/* step 8: the checks, in action order; after a ValidationError none */
	for (int i = 0; i < n && !stopped; i++)
	{
		CHECK_FOR_INTERRUPTS();
		check_action(&acts[i], scratch);
		failed = failed || acts[i].reason != RC_NONE;
		stopped = acts[i].reason == RC_VALIDATION;
	}
	if (failed)
		cancel_transaction(acts, n, caps, ncaps, false);

	apply_writes(acts, n, caps, ncaps, scratch);
	charge_writes(acts, n, caps, scratch);
	st_capacity_end_many(caps, ncaps, true);

	old = MemoryContextSwitchTo(callcxt);
	response = write_response();
	MemoryContextSwitchTo(old);
	if (token)
		st_token_store(token, token_len, hash, response);
	SPI_finish();
	return response;
}

/* ---------------------------------------------------------------- transact_get */

Jsonb *
st_op_transact_get(Jsonb *items)
{
	MemoryContext callcxt = CurrentMemoryContext;
	int			n;
	Action	   *acts;
	StCapacity *caps;
	int			ncaps;
	int64		total = 0;
	StTtlClock	clock;
	JsonbParseState *state = NULL;
	Jsonb	   *cc;
	Jsonb	   *response;
	MemoryContext scratch;
	MemoryContext old;

	n = check_list(items, true);
	SPI_connect();
	scratch = AllocSetContextCreate(CurrentMemoryContext, "singletable transaction action",
									ALLOCSET_DEFAULT_SIZES);
	acts = prepare(items, true, n, scratch, &caps, &ncaps);
	(void) lock_order(acts, n);
	st_ttl_clock(&clock);

	/* read-only statements of one connection: all see the calling statement's snapshot */
	for (int i = 0; i < n; i++)
	{
		Action	   *a = &acts[i];
		StCapacity *cap = &caps[a->cap];
		Jsonb	   *item;

		CHECK_FOR_INTERRUPTS();
		item = st_read_item(a->tab, a->values, a->nulls, "transact_get");
		st_capacity_get(cap, item);
		st_hot_keys_record(a->tab, false, a->pk.display);
		if (item)
		{
			total += st_capacity_item_size(a->tab, item);
			if (total > ST_TRANSACT_MAX_BYTES)
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("the items transact_get reads are more than %d bytes together, reached at action %d",
								ST_TRANSACT_MAX_BYTES, a->n),
						 st_errdetail_dynamodb("The aggregate size of the items in the transaction exceeds 4 MB.")));
			/* expired but not swept yet: as good as deleted, as for get_item */
			if (a->tab->ttl_attr && st_ttl_item_expired(a->tab, item, &clock))
				item = NULL;
		}
		if (item && a->proj)
			item = DatumGetJsonbP(st_project_item(a->tab, a->proj, st_attr_names(NULL, a->proj), item));
		if (item)
			cap->table.counts.items_returned++;
		a->current = item;
	}
	st_capacity_end_many(caps, ncaps, true);

	old = MemoryContextSwitchTo(callcxt);
	cc = st_last_consumed_capacity();
	(void) pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	st_push_key(&state, "Responses");
	(void) pushJsonbValue(&state, WJB_BEGIN_ARRAY, NULL);
	for (int i = 0; i < n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		(void) pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
		if (acts[i].current)
			st_push_jsonb(&state, "Item", acts[i].current);
		(void) pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	}
	(void) pushJsonbValue(&state, WJB_END_ARRAY, NULL);
	if (cc)
		st_push_jsonb(&state, "ConsumedCapacity", cc);
	response = JsonbValueToJsonb(pushJsonbValue(&state, WJB_END_OBJECT, NULL));
	MemoryContextSwitchTo(old);
	SPI_finish();
	return response;
}

/* ---------------------------------------------------------------- SQL */

/*
 * singletable.transact_write(transact_items jsonb, client_request_token
 * text DEFAULT NULL) -> jsonb
 */
Datum
singletable_transact_write(PG_FUNCTION_ARGS)
{
	Jsonb	   *items = PG_ARGISNULL(0) ? NULL : PG_GETARG_JSONB_P(0);
	text	   *token = PG_ARGISNULL(1) ? NULL : PG_GETARG_TEXT_PP(1);

	PG_RETURN_JSONB_P(st_op_transact_write(items, token ? VARDATA_ANY(token) : NULL,
										   token ? VARSIZE_ANY_EXHDR(token) : 0));
}

/* singletable.transact_get(transact_items jsonb) -> jsonb */
Datum
singletable_transact_get(PG_FUNCTION_ARGS)
{
	PG_RETURN_JSONB_P(st_op_transact_get(PG_ARGISNULL(0) ? NULL : PG_GETARG_JSONB_P(0)));
}

/*
 * singletable.cancellation_reasons() -> jsonb: the CancellationReasons of
 * this session's last transact_write if it was cancelled (for the same
 * role), with the current items of failed conditions that asked for them;
 * else NULL. Read it after the error, e.g. in an EXCEPTION block.
 */
Datum
singletable_cancellation_reasons(PG_FUNCTION_ARGS)
{
	Jsonb	   *j = st_cancellation_reasons();

	if (j == NULL)
		PG_RETURN_NULL();
	PG_RETURN_JSONB_P(j);
}
