/* SPDX-License-Identifier: MIT */
/*
 * C++ names as perf script shows them (libiberty without DMGL_PARAMS):
 * the Itanium demangler of the C++ runtime (found with dlopen, so
 * libperfkit does not depend on it), then the outermost function's
 * parameter list, qualifiers and return type removed.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "symbol/symtab.h"

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

static demangle_fn demangler(void)
{
	static demangle_fn fn;
	static bool tried;

	if (!tried) {
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);

		tried = true;
		if (h)
			fn = (demangle_fn)dlsym(h, "__cxa_demangle");
	}
	return fn;
}

static bool ends_with(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);

	return n >= k && !memcmp(s + n - k, suf, k);
}

/* Index just past an "operator" token's symbol characters. */
static bool is_operator(const char *d, size_t i)
{
	return !strncmp(d + i, "operator", 8) &&
	       (i == 0 || d[i - 1] == ':' || d[i - 1] == ' ') &&
	       !((d[i + 8] >= 'a' && d[i + 8] <= 'z') ||
		 (d[i + 8] >= 'A' && d[i + 8] <= 'Z') ||
		 (d[i + 8] >= '0' && d[i + 8] <= '9') || d[i + 8] == '_');
}

void pk__demangle_strip(char *d)
{
	static const char *const quals[] = { " const", " volatile", " &&",
					     " &", " noexcept" };
	size_t n = strlen(d), start = 0, cut;
	int depth = 0;
	bool again = true;

	static const char *const whole[] = { "virtual thunk to ",
		"non-virtual thunk to ", "covariant return thunk to ",
		"transaction clone for ", "non-transaction clone for ",
		"hidden alias for " };

	/* libiberty prints the special names over a function whole */
	for (size_t i = 0; i < sizeof(whole) / sizeof(whole[0]); i++)
		if (!strncmp(d, whole[i], strlen(whole[i])))
			return;
	while (again) { /* clone suffixes, qualifiers of a method */
		again = false;
		if (n && d[n - 1] == ']') {
			char *c = strstr(d, " [clone ");

			while (c && strstr(c + 1, " [clone ") &&
			       strstr(c + 1, " [clone ") < d + n)
				c = strstr(c + 1, " [clone ");
			if (c && c < d + n) {
				n = (size_t)(c - d);
				again = true;
				continue;
			}
		}
		for (size_t q = 0; q < sizeof(quals) / sizeof(quals[0]); q++)
			if (ends_with(d, n, quals[q])) {
				n -= strlen(quals[q]);
				again = true;
			}
	}
	if (!n || d[n - 1] != ')')
		return;
	for (cut = n; cut-- > 0;) { /* the '(' of the last parameter list */
		if (d[cut] == ')')
			depth++;
		else if (d[cut] == '(' && --depth == 0)
			break;
	}
	if (depth || !cut || (cut >= 8 && !strncmp(d + cut - 8, "operator", 8) &&
			      d[cut + 1] == ')' && cut + 2 == n))
		return; /* unbalanced, or a bare "operator()" */
	/* a return type (template functions) ends at the last space at
	 * depth 0 before any "operator" */
	depth = 0;
	for (size_t i = 0, open0 = 0; i < cut; i++) {
		char c = d[i];

		if (depth == 0 && is_operator(d, i))
			break;
		if (c == '(' && depth == 0)
			open0 = i;
		if (c == '<' || c == '(' || c == '{' || c == '[')
			depth++;
		else if (c == '>' && i && d[i - 1] == '-')
			; /* "->" in a decltype */
		else if (c == '>' || c == ')' || c == '}' || c == ']')
			depth--;
		else if (c == ' ' && depth == 0 && i && (d[i - 1] != ')' ||
			 open0 == 0 || (open0 >= 9 &&
					 !strncmp(d + open0 - 9, "decltype ", 9))))
			/* not "f(int) const::..." of a local, but a return
			 * type "(...)" or "decltype (...)" */
			start = i + 1;
	}
	memmove(d, d + start, cut - start);
	d[cut - start] = '\0';
}

char *pk__demangle(const char *name)
{
	demangle_fn fn;
	char *d, *r;
	int status = 0;

	if (name[0] != '_' || name[1] != 'Z' || !(fn = demangler()))
		return NULL;
	d = fn(name, NULL, NULL, &status);
	if (!d || status)
		return NULL;
	pk__demangle_strip(d);
	r = pk__strdup(d);
	free(d);
	return r;
}
