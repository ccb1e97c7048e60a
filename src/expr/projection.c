/*
 * projection.c — ProjectionExpression: the listed paths of an item, in their
 * original nesting. Several indexes of one list come back as a compacted list
 * in index order; missing paths are dropped silently.
 */
#include "st_base.h"

#include "expr.h"

/* A node of the result under construction: a leaf value or a map/list */
typedef struct PNode PNode;
struct PNode
{
	const StVal *leaf;			/* set for a projected value */
	bool		is_list;
	int			n;
	int			cap;
	StPathElem *keys;			/* names (map) or indexes (list) */
	PNode	  **children;
};

static PNode *
pnode_child(PNode *parent, const StPathElem *el)
{
	PNode	   *c;

	for (int i = 0; i < parent->n; i++)
	{
		StPathElem *k = &parent->keys[i];

		if (el->is_index ? k->index == el->index
			: (k->namelen == el->namelen && memcmp(k->name, el->name, el->namelen) == 0))
			return parent->children[i];
	}
	if (parent->n == parent->cap)
	{
		parent->cap = parent->cap ? parent->cap * 2 : 4;
		parent->keys = parent->keys ? repalloc(parent->keys, sizeof(StPathElem) * parent->cap)
			: palloc(sizeof(StPathElem) * parent->cap);
		parent->children = parent->children ? repalloc(parent->children, sizeof(PNode *) * parent->cap)
			: palloc(sizeof(PNode *) * parent->cap);
	}
	c = palloc0(sizeof(PNode));
	parent->keys[parent->n] = *el;
	parent->children[parent->n++] = c;
	return c;
}

static int
index_cmp(const void *a, const void *b)
{
	return ((const StPathElem *) a)->index - ((const StPathElem *) b)->index;
}

/* Turns a result tree into a value; lists are compacted in index order. */
static StVal *
pnode_to_val(PNode *p)
{
	StVal	   *v;

	if (p->leaf)
		return (StVal *) p->leaf;
	if (p->is_list)
	{
		/* sort children by index, keeping keys and children together */
		int		   *order = palloc(sizeof(int) * Max(p->n, 1));
		StPathElem *sorted = palloc(sizeof(StPathElem) * Max(p->n, 1));

		for (int i = 0; i < p->n; i++)
		{
			sorted[i] = p->keys[i];
			sorted[i].namelen = i;	/* remember the child */
		}
		qsort(sorted, p->n, sizeof(StPathElem), index_cmp);
		for (int i = 0; i < p->n; i++)
			order[i] = sorted[i].namelen;
		v = palloc0(sizeof(StVal));
		v->type = SV_L;
		v->u.list.n = p->n;
		v->u.list.elems = palloc(sizeof(StVal *) * Max(p->n, 1));
		for (int i = 0; i < p->n; i++)
			v->u.list.elems[i] = pnode_to_val(p->children[order[i]]);
		return v;
	}
	v = st_val_make_map(p->n);
	for (int i = 0; i < p->n; i++)
		st_val_map_put(v, p->keys[i].name, p->keys[i].namelen, pnode_to_val(p->children[i]));
	return v;
}

/* The projection of item (an M) on proj's paths. */
StVal *
st_project(const StProjection *proj, const StVal *item)
{
	PNode	   *root = palloc0(sizeof(PNode));

	for (int i = 0; i < proj->n; i++)
	{
		const StPath *path = proj->paths[i];
		const StVal *v = st_path_get(item, path);
		PNode	   *cur = root;

		if (v == NULL)
			continue;
		for (int k = 0; k < path->n; k++)
		{
			cur->is_list = path->elems[k].is_index;
			cur = pnode_child(cur, &path->elems[k]);
		}
		cur->leaf = v;
	}
	return pnode_to_val(root);
}

/* The paths an update touches, as a projection (for UPDATED_OLD/NEW). */
StProjection *
st_update_paths(const StUpdate *upd)
{
	StProjection *p = palloc0(sizeof(StProjection));

	p->n = upd->n;
	p->paths = palloc(sizeof(StPath *) * Max(upd->n, 1));
	for (int i = 0; i < upd->n; i++)
		p->paths[i] = upd->actions[i].path;
	return p;
}
