/* SPDX-License-Identifier: MIT */
/*
 * The kernel symbol table (lib/symbol/ksyms.c): one kallsyms text, the
 * three lookup rules of its users on the same addresses.
 */
#include <string.h>
#include "base/base.h"
#include "symbol/ksyms.h"
#include "symbol/symtab.h"
#include "test.h"

#define K(a) (0xffffffff81000000ull + (a))

/* unsorted (a module line first), aliases at 0x100, data between text */
static const char text[] =
	"ffffffffc0000000 t modfn\t[mymod]\n"
	"ffffffff81000100 T alpha\n"
	"ffffffff81000100 t alpha_alias\n"
	"ffffffff81000100 W alpha_weak\n"
	"ffffffff81000200 d data_obj\n"
	"not a line\n"
	"ffffffff81000300 T gamma\n"
	"ffffffff81000050 T early";   /* no newline at the end */

static const char *name_at(const struct pk_ksyms *k, long i)
{
	return i < 0 ? "(none)" : k->v[i].name;
}

static void test_kernel_rule(const struct pk_ksyms *k)
{
	long i = pk__ksyms_first(k, K(0x250));
	long m = pk__ksyms_first(k, 0xffffffffc0000010ull);

	t_check(k->n == 7 && k->v[0].addr == K(0x50) &&
		!strcmp(k->v[6].name, "modfn"), "ksyms_parse_sorted",
		"n=%zu first=%s", k->n, k->n ? k->v[0].name : "");
	t_check(!strcmp(name_at(k, pk__ksyms_first(k, K(0x150))), "alpha") &&
		pk__ksyms_size(k, (size_t)pk__ksyms_first(k, K(0x150))) ==
		0x100, "ksyms_kernel_first_alias", "%s",
		name_at(k, pk__ksyms_first(k, K(0x150))));
	t_check(i >= 0 && !strcmp(k->v[i].name, "data_obj") &&
		!pk__ksym_is_text(k->v[i].type), "ksyms_kernel_data", "%s",
		name_at(k, i));
	t_check(m >= 0 && pk__ksym_mod(&k->v[m]) &&
		!strcmp(pk__ksym_mod(&k->v[m]), "mymod") && k->v[m].len == 5,
		"ksyms_kernel_module", "%s [%s]", name_at(k, m),
		m >= 0 && k->v[m].mod ? pk__ksym_mod(&k->v[m]) : "");
	t_check(pk__ksyms_first(k, K(0x10)) == -1 &&
		pk__ksyms_addr(k, "gamma") == K(0x300) &&
		!pk__ksyms_addr(k, "nosuch"), "ksyms_kernel_edges", "bad");
}

/* libtraceevent: ties in reverse kallsyms order, last symbol exact only */
static void test_tep_rule(const struct pk_ksyms *k)
{
	const struct pk_ksym *a = pk__ksyms_tep(k, K(0x150));
	const struct pk_ksym *e = pk__ksyms_tep(k, K(0x50));
	const struct pk_ksym *last = pk__ksyms_tep(k, 0xffffffffc0000001ull);

	t_check(a && !strcmp(a->name, "alpha") && e &&
		!strcmp(e->name, "early") && !last &&
		!pk__ksyms_tep(k, K(0x10)), "ksyms_tep_rule", "%s %s %s",
		a ? a->name : "-", e ? e->name : "-", last ? last->name : "-");
}

/* perf: text only, unsized aliases give way to the sized (last) one */
static void test_perf_rule(void)
{
	struct pk_symtab t = { 0 };
	char *copy = pk__strdup(text);
	const struct pk_sym *s;
	int r = pk__symtab_load_kallsyms_text(&t, copy);

	s = pk__symtab_find(&t, K(0x250));
	t_check(!r && s && !strcmp(s->name, "alpha_weak") &&
		s->start == K(0x100) && s->end == K(0x300), "ksyms_perf_rule",
		"r=%d %s", r, s ? s->name : "-");
	pk__symtab_fini(&t);
}

/* the compiled formatter's table: names stay in the (read-only) text */
static void test_borrow(void)
{
	struct pk_ksyms k = { 0 };
	int r = pk__ksyms_borrow(&k, text, strlen(text));
	const struct pk_ksym *a = pk__ksyms_tep(&k, K(0x150));
	const struct pk_ksym *m = k.n ? &k.v[k.n - 1] : NULL;

	t_check(!r && k.n == 7 && a && a->len == 5 &&
		!memcmp(a->name, "alpha\n", 6) && m && m->len == 5 &&
		!m->mod && !memcmp(m->name, "modfn\t", 6), "ksyms_borrow",
		"r=%d n=%zu", r, k.n);
	pk__ksyms_fini(&k);
}

int main(void)
{
	struct pk_ksyms k = { 0 };
	int r = pk__ksyms_parse(&k, text, strlen(text));

	t_check(r == 0, "ksyms_parse", "r=%d", r);
	test_kernel_rule(&k);
	test_tep_rule(&k);
	test_perf_rule();
	test_borrow();
	r = pk__ksyms_parse(&k, "", 0);
	t_check(!r && !k.n && !pk__ksyms_tep(&k, 1) &&
		pk__ksyms_first(&k, 1) == -1, "ksyms_empty", "r=%d n=%zu", r,
		k.n);
	pk__ksyms_fini(&k);
	return t_exit();
}
