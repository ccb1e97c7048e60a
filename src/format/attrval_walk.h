/*
 * attrval_walk.h — the stored-to-wire walk of attrval.c, included there
 * twice (as PostgreSQL's lib/sort_template.h is): with WALK_TEXT false it
 * writes the wire form's binary jsonb, with WALK_TEXT true its JSON text.
 * WALK(name) names each function of the instance. The walk decides once
 * what every stored value is on the wire, how it is sized and what it
 * refuses; the out_* calls of attrval.c are all that differs, and with
 * WALK_TEXT a constant each instance keeps only its own branch of them.
 *
 * Not a header to include anywhere else.
 */

/*
 * A stored number as an N: {"N": "<text>"}, or with type 0 the bare string
 * of an NS member. Its text is written into a buffer on the stack when it
 * fits (every DynamoDB number does), else numeric_out's is used.
 */
static JEntry
WALK(write_number)(StringInfo buf, Numeric num, char type, int64 *size)
{
	char		tmp[ST_NUMTEXT_BUFSIZE];
	int			len;
	char	   *s = st_numeric_print(num, tmp, &len);
	JEntry		e;

	e = type ? out_typed_string(WALK_TEXT, buf, type, s, len) : out_string(WALK_TEXT, buf, s, len);
	if (size)
		*size += st_size_number_text(s, len);
	if (s != tmp)
		pfree(s);
	return e;
}

/* Begins the wire value {"<type>": ...}: the caller writes the value, then ends it */
static void
WALK(begin_typed)(StringInfo buf, WireCont *c, const char *type)
{
	out_begin(WALK_TEXT, buf, c, true, 1);
	if (WALK_TEXT)
		out_key(WALK_TEXT, buf, c, type, strlen(type));
	else
		st_jbw_child(buf, &c->c, st_jbw_string(buf, type, strlen(type)));
}

static JEntry WALK(write_wire)(StringInfo buf, JsonbValue *v, bool plain_b, int64 *size);

/*
 * The members of a stored set of wire type wire (SS, NS or BS), as strings
 * (not an array: none)
 */
static JEntry
WALK(write_set_members)(StringInfo buf, JsonbValue *arr, const char *wire, int64 *size)
{
	WireCont	a;
	JsonbContainer *c = NULL;
	int			n = 0;
	int			nchildren = 0;
	char	   *data = NULL;
	uint32		off = 0;

	if (arr->type == jbvBinary && JsonContainerIsArray(arr->val.binary.data))
	{
		c = arr->val.binary.data;
		n = JsonContainerSize(c);
		data = children_of(c, &nchildren);
	}
	else if (size)
		st_size_not_stored("a set is not a JSON array");
	if (size && n == 0)
		st_size_not_stored("a set is empty");
	out_begin(WALK_TEXT, buf, &a, false, n);
	for (int i = 0; i < n; i++)
	{
		JsonbValue	v;

		CHECK_FOR_INTERRUPTS();
		value_at(c, data, i, &off, &v);
		if (size)
		{
			if (wire[0] == 'N' && v.type != jbvNumeric)
				st_size_not_stored("an $NS member is not a number");
			if (wire[0] != 'N' && v.type != jbvString)
				st_size_not_stored(wire[0] == 'S' ? "an $SS member is not a string" :
								   "a $BS member is not a base64 string");
			if (wire[0] == 'S')
				*size += v.val.string.len;
			else if (wire[0] == 'B')
				*size += st_size_base64(v.val.string.val, v.val.string.len);
		}
		out_elem(WALK_TEXT, buf, &a);
		if (v.type == jbvNumeric)
			out_child(WALK_TEXT, buf, &a, WALK(write_number)(buf, v.val.numeric, 0, size));
		else if (v.type == jbvString)
			out_child(WALK_TEXT, buf, &a, out_string(WALK_TEXT, buf, v.val.string.val, v.val.string.len));
		else
			out_child(WALK_TEXT, buf, &a, out_value(WALK_TEXT, buf, &v));
	}
	return out_end(WALK_TEXT, buf, &a);
}

/*
 * The entries of a stored map container as a wire map: of an item (top:
 * keys its key schema, its B keys plain) or of an M (keys NULL). Sizing
 * adds the members' names and values, and 1 per member of an M: its
 * container's 3 bytes are its caller's.
 */
static JEntry
WALK(write_map_entries)(StringInfo buf, JsonbContainer *c, bool top, const StAttrKeys *keys, int64 *size)
{
	WireCont	m;
	int			n = JsonContainerSize(c);
	int			nchildren;
	char	   *data = children_of(c, &nchildren);
	uint32		off = 0;
	uint32		koff = 0;
	int			b_keys[2] = {-1, -1};
	const char *pk_b = keys && keys->pk_type == ST_KEY_B ? keys->pk_name : NULL;
	const char *sk_b = keys && keys->sk_name && keys->sk_type == ST_KEY_B ? keys->sk_name : NULL;

	Assert(JsonContainerIsObject(c));
	check_stack_depth();
	/* the keys as stored: the wire map has the same keys, so the same order */
	off = out_begin_map(WALK_TEXT, buf, &m, c, n);
	/* the names' bytes are their data's length */
	if (size)
		*size += off + (top ? 0 : n);
	if (pk_b || sk_b)
	{
		for (int i = 0; i < n; i++)
		{
			JsonbValue	k;

			CHECK_FOR_INTERRUPTS();
			value_at(c, data, i, &koff, &k);
			Assert(k.type == jbvString);
			if (is_name(&k, pk_b))
				b_keys[0] = i;
			if (is_name(&k, sk_b))
				b_keys[1] = i;
		}
		koff = 0;
	}
	for (int i = 0; i < n; i++)
	{
		JsonbValue	v;

		CHECK_FOR_INTERRUPTS();
		if (WALK_TEXT)
		{
			JsonbValue	k;

			value_at(c, data, i, &koff, &k);
			out_key(WALK_TEXT, buf, &m, k.val.string.val, k.val.string.len);
		}
		value_at(c, data, n + i, &off, &v);
		/* the most common value, an S, without the call */
		if (v.type == jbvString && b_keys[0] != i && b_keys[1] != i)
		{
			out_child(WALK_TEXT, buf, &m, out_typed_string(WALK_TEXT, buf, 'S', v.val.string.val, v.val.string.len));
			if (size)
				*size += v.val.string.len;
		}
		else if (v.type != jbvString && (b_keys[0] == i || b_keys[1] == i) && size)
			st_size_not_stored("a B key attribute is not a base64 string");
		else
			out_child(WALK_TEXT, buf, &m, WALK(write_wire)(buf, &v, v.type == jbvString, size));
	}
	return out_end(WALK_TEXT, buf, &m);
}

/* Writes one stored value in wire form (plain_b: a B key attribute's plain base64) */
static JEntry
WALK(write_wire)(StringInfo buf, JsonbValue *v, bool plain_b, int64 *size)
{
	WireCont	t;

	/* the recursion is in the containers' case, which checks the stack */
	switch (v->type)
	{
		case jbvString:
			if (size)
				*size += plain_b ? st_size_base64(v->val.string.val, v->val.string.len)
					: v->val.string.len;
			return out_typed_string(WALK_TEXT, buf, plain_b ? 'B' : 'S', v->val.string.val, v->val.string.len);
		case jbvNumeric:
			return WALK(write_number)(buf, v->val.numeric, 'N', size);
		case jbvBool:
			if (size)
				*size += 1;
			return out_typed_bool(WALK_TEXT, buf, "BOOL", v->val.boolean);
		case jbvNull:
			if (size)
				*size += 1;
			return out_typed_bool(WALK_TEXT, buf, "NULL", true);
		case jbvBinary:
			{
				JsonbContainer *c = v->val.binary.data;
				int			nchildren;
				char	   *data = children_of(c, &nchildren);
				uint32		off = 0;

				check_stack_depth();
				if (JsonContainerIsArray(c))
				{
					WireCont	a;

					if (size)
						*size += 3 + nchildren;
					WALK(begin_typed)(buf, &t, "L");
					out_begin(WALK_TEXT, buf, &a, false, nchildren);
					for (int i = 0; i < nchildren; i++)
					{
						JsonbValue	e;

						CHECK_FOR_INTERRUPTS();
						value_at(c, data, i, &off, &e);
						out_elem(WALK_TEXT, buf, &a);
						out_child(WALK_TEXT, buf, &a, WALK(write_wire)(buf, &e, false, size));
					}
					out_child(WALK_TEXT, buf, &t, out_end(WALK_TEXT, buf, &a));
					break;
				}
				if (JsonContainerSize(c) == 1)
				{
					JsonbValue	k,
								tv;
					const char *wire;

					value_at(c, data, 0, &off, &k);
					value_at(c, data, 1, &off, &tv);
					wire = tag_type(&k);
					if (wire && strcmp(wire, "B") == 0 && tv.type == jbvString)
					{
						if (size)
							*size += st_size_base64(tv.val.string.val, tv.val.string.len);
						return out_typed_string(WALK_TEXT, buf, 'B', tv.val.string.val, tv.val.string.len);
					}
					if (wire && strcmp(wire, "B") == 0)
					{
						if (size)
							st_size_not_stored("a $B value is not a base64 string");
						WALK(begin_typed)(buf, &t, "B");
						out_child(WALK_TEXT, buf, &t, out_value(WALK_TEXT, buf, &tv));
						break;
					}
					if (wire && strcmp(wire, "M") == 0 && tv.type == jbvBinary &&
						JsonContainerIsObject(tv.val.binary.data))
					{
						if (size)
							*size += 3;
						WALK(begin_typed)(buf, &t, "M");
						out_child(WALK_TEXT, buf, &t, WALK(write_map_entries)(buf, tv.val.binary.data, false, NULL, size));
						break;
					}
					if (wire && strcmp(wire, "M") == 0 && size)
						st_size_not_stored("an $M value is not a JSON object");
					if (wire && strcmp(wire, "M") != 0)
					{
						WALK(begin_typed)(buf, &t, wire);
						out_child(WALK_TEXT, buf, &t, WALK(write_set_members)(buf, &tv, wire, size));
						break;
					}
				}
				if (size)
					*size += 3;
				WALK(begin_typed)(buf, &t, "M");
				out_child(WALK_TEXT, buf, &t, WALK(write_map_entries)(buf, c, false, NULL, size));
				break;
			}
		default:
			elog(ERROR, "unexpected jsonb value type %d", v->type);
	}
	return out_end(WALK_TEXT, buf, &t);
}

/* The walk of a stored item (with size: checked to be one, as st_stored_item_size does) */
static JEntry
WALK(write_item)(StringInfo buf, JsonbContainer *stored, const StAttrKeys *keys, int64 *size)
{
	if (!JsonContainerIsObject(stored) && size)
		st_size_not_stored("it is not a JSON object");
	if (!JsonContainerIsObject(stored))
		elog(ERROR, "a stored item is not a JSON object");
	return WALK(write_map_entries)(buf, stored, true, keys, size);
}

#undef WALK_TEXT
#undef WALK
