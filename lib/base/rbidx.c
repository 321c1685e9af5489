/* SPDX-License-Identifier: MIT */
/* Red-black trees over array indexes, rebalanced as Linux's rbtree (see
 * rbidx.h). Nodes are handles: an index + 1, 0 for none. */
#include "base/rbidx.h"

#define N(h) (t[(h) - 1])

static bool is_red(const struct pk_rbi *t, uint32_t h)
{
	return h && N(h).red;
}

/* OLD's place under PARENT (or the root) goes to NEW. */
static void change_child(struct pk_rbi *t, uint32_t *root, uint32_t old,
			 uint32_t nw, uint32_t parent)
{
	if (!parent)
		*root = nw;
	else if (N(parent).l == old)
		N(parent).l = nw;
	else
		N(parent).r = nw;
}

/* After a rotation: NEW takes OLD's parent and colour, OLD goes under NEW
 * with colour RED. */
static void rotate_set_parents(struct pk_rbi *t, uint32_t *root, uint32_t old,
			       uint32_t nw, bool red)
{
	uint32_t parent = N(old).p;

	N(nw).p = parent;
	N(nw).red = N(old).red;
	N(old).p = nw;
	N(old).red = red;
	change_child(t, root, old, nw, parent);
}

static void set_pc(struct pk_rbi *t, uint32_t h, uint32_t parent, bool red)
{
	N(h).p = parent;
	N(h).red = red;
}

/* The kernel's __rb_insert, both sides folded: L says the parent is its
 * parent's left child. */
static void insert_color(struct pk_rbi *t, uint32_t *root, uint32_t node)
{
	uint32_t parent = N(node).p;

	for (;;) {
		uint32_t gparent, tmp;
		bool l;

		if (!parent) {
			N(node).red = false;
			return;
		}
		if (!N(parent).red)
			return;
		gparent = N(parent).p;
		l = N(gparent).r != parent;
		tmp = l ? N(gparent).r : N(gparent).l; /* the uncle */
		if (is_red(t, tmp)) { /* colour flips, go up */
			set_pc(t, tmp, gparent, false);
			set_pc(t, parent, gparent, false);
			node = gparent;
			parent = N(node).p;
			set_pc(t, node, parent, true);
			continue;
		}
		tmp = l ? N(parent).r : N(parent).l;
		if (node == tmp) { /* rotate at the parent */
			tmp = l ? N(node).l : N(node).r;
			if (l) {
				N(parent).r = tmp;
				N(node).l = parent;
			} else {
				N(parent).l = tmp;
				N(node).r = parent;
			}
			if (tmp)
				set_pc(t, tmp, parent, false);
			set_pc(t, parent, node, true);
			parent = node;
			tmp = l ? N(node).r : N(node).l;
		}
		/* rotate at the grandparent */
		if (l) {
			N(gparent).l = tmp;
			N(parent).r = gparent;
		} else {
			N(gparent).r = tmp;
			N(parent).l = gparent;
		}
		if (tmp)
			set_pc(t, tmp, gparent, false);
		rotate_set_parents(t, root, gparent, parent, true);
		return;
	}
}

void pk__rbi_insert(struct pk_rbi *t, uint32_t *root, uint32_t x,
		    uint32_t parent, bool left)
{
	uint32_t h = x + 1;

	N(h) = (struct pk_rbi){ .p = parent, .red = true };
	if (!parent)
		*root = h;
	else if (left)
		N(parent).l = h;
	else
		N(parent).r = h;
	insert_color(t, root, h);
}

/* The kernel's ____rb_erase_color from PARENT, whose child on the
 * short side (NODE, maybe none) lost a black. */
static void erase_color(struct pk_rbi *t, uint32_t *root, uint32_t parent)
{
	uint32_t node = 0, sibling, tmp1, tmp2;

	for (;;) {
		/* L: NODE is the left child (the sibling on the right) */
		bool l = node != N(parent).r;

		sibling = l ? N(parent).r : N(parent).l;
		if (N(sibling).red) { /* rotate at the parent */
			tmp1 = l ? N(sibling).l : N(sibling).r;
			if (l) {
				N(parent).r = tmp1;
				N(sibling).l = parent;
			} else {
				N(parent).l = tmp1;
				N(sibling).r = parent;
			}
			set_pc(t, tmp1, parent, false);
			rotate_set_parents(t, root, parent, sibling, true);
			sibling = tmp1;
		}
		tmp1 = l ? N(sibling).r : N(sibling).l; /* the far nephew */
		if (!is_red(t, tmp1)) {
			tmp2 = l ? N(sibling).l : N(sibling).r;
			if (!is_red(t, tmp2)) { /* colour flip */
				set_pc(t, sibling, parent, true);
				if (N(parent).red) {
					N(parent).red = false;
				} else {
					node = parent;
					parent = N(node).p;
					if (parent)
						continue;
				}
				return;
			}
			/* rotate at the sibling */
			tmp1 = l ? N(tmp2).r : N(tmp2).l;
			if (l) {
				N(sibling).l = tmp1;
				N(tmp2).r = sibling;
				N(parent).r = tmp2;
			} else {
				N(sibling).r = tmp1;
				N(tmp2).l = sibling;
				N(parent).l = tmp2;
			}
			if (tmp1)
				set_pc(t, tmp1, sibling, false);
			tmp1 = sibling;
			sibling = tmp2;
		}
		/* rotate at the parent, colour flips */
		tmp2 = l ? N(sibling).l : N(sibling).r;
		if (l) {
			N(parent).r = tmp2;
			N(sibling).l = parent;
		} else {
			N(parent).l = tmp2;
			N(sibling).r = parent;
		}
		set_pc(t, tmp1, sibling, false);
		if (tmp2)
			N(tmp2).p = parent;
		rotate_set_parents(t, root, parent, sibling, false);
		return;
	}
}

void pk__rbi_erase(struct pk_rbi *t, uint32_t *root, uint32_t x)
{
	uint32_t node = x + 1, child = N(node).r, tmp = N(node).l;
	uint32_t parent, rebalance;

	if (!tmp) { /* at most a right child: it takes NODE's place */
		parent = N(node).p;
		change_child(t, root, node, child, parent);
		if (child) {
			set_pc(t, child, parent, N(node).red);
			rebalance = 0;
		} else {
			rebalance = N(node).red ? 0 : parent;
		}
	} else if (!child) { /* a left child alone (red) */
		parent = N(node).p;
		set_pc(t, tmp, parent, N(node).red);
		change_child(t, root, node, tmp, parent);
		rebalance = 0;
	} else { /* the successor takes NODE's place and colour */
		uint32_t successor = child, child2;

		tmp = N(child).l;
		if (!tmp) {
			parent = successor;
			child2 = N(successor).r;
		} else {
			do {
				parent = successor;
				successor = tmp;
				tmp = N(tmp).l;
			} while (tmp);
			child2 = N(successor).r;
			N(parent).l = child2;
			N(successor).r = child;
			N(child).p = successor;
		}
		tmp = N(node).l;
		N(successor).l = tmp;
		N(tmp).p = successor;
		change_child(t, root, node, successor, N(node).p);
		if (child2) {
			set_pc(t, child2, parent, false);
			rebalance = 0;
		} else {
			rebalance = N(successor).red ? 0 : parent;
		}
		set_pc(t, successor, N(node).p, N(node).red);
	}
	N(node) = (struct pk_rbi){ 0 };
	if (rebalance)
		erase_color(t, root, rebalance);
}
