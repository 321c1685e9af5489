/* SPDX-License-Identifier: MIT */
/*
 * perf script's -F: "[type:][+|-]field,..." with perf's default fields
 * per event type and its rules for adding, removing and replacing them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "script.h"

#define HWDEF (SF_COMM | SF_TID | SF_CPU | SF_TIME | SF_EVNAME | SF_IP | \
	       SF_SYM | SF_SYMOFFSET | SF_DSO | SF_PERIOD)

static const struct { const char *name; uint64_t bit; } names[] = {
	{ "comm", SF_COMM }, { "tid", SF_TID }, { "pid", SF_PID },
	{ "time", SF_TIME }, { "cpu", SF_CPU }, { "event", SF_EVNAME },
	{ "trace", SF_TRACE }, { "ip", SF_IP }, { "sym", SF_SYM },
	{ "dso", SF_DSO }, { "addr", SF_ADDR }, { "symoff", SF_SYMOFFSET },
	{ "srcline", SF_SRCLINE }, { "period", SF_PERIOD },
	{ "flags", SF_FLAGS }, { "callindent", SF_CALLINDENT },
	{ "data_src", SF_DATA_SRC }, { "weight", SF_WEIGHT },
	{ "ins_lat", SF_INS_LAT }, { "phys_addr", SF_PHYS_ADDR },
	{ "data_page_size", SF_DATA_PAGE_SIZE },
	{ "code_page_size", SF_CODE_PAGE_SIZE },
	{ "insn", SF_INSN }, { "insnlen", SF_INSNLEN }, { "synth", SF_SYNTH },
	{ "ipc", SF_IPC }, { "brstack", SF_BRSTACK },
	{ "brstacksym", SF_BRSTACKSYM }, { "brstackoff", SF_BRSTACKOFF },
	{ "iregs", SF_IREGS }, { "uregs", SF_UREGS },
	{ "machine_pid", SF_MACHINE_PID }, { "vcpu", SF_VCPU },
};

static const char *const type_names[ST_MAX] = {
	"hw", "sw", "trace", "hwcache", "raw", "break", "synth", "other",
};

static uint32_t invalid(int t)
{
	return t == ST_TRACE || t == ST_SYNTH ? 0 : SF_TRACE;
}

void script_fields_init(struct script_fields *f)
{
	memset(f, 0, sizeof(*f));
	for (int t = 0; t < ST_MAX; t++)
		f->t[t].fields = HWDEF;
	f->t[ST_TRACE].fields = SF_COMM | SF_TID | SF_CPU | SF_TIME |
				SF_EVNAME | SF_TRACE;
	/* raw events (memory sampling) show the memory fields too */
	f->t[ST_RAW].fields |= SF_ADDR | SF_DATA_SRC | SF_WEIGHT |
			       SF_PHYS_ADDR | SF_DATA_PAGE_SIZE |
			       SF_CODE_PAGE_SIZE | SF_INS_LAT;
	f->t[ST_SYNTH].fields = SF_COMM | SF_TID | SF_CPU | SF_TIME |
				SF_EVNAME | SF_IP | SF_SYM | SF_SYMOFFSET |
				SF_DSO | SF_SYNTH;
}

int script_type_of(uint32_t attr_type)
{
	if (attr_type == 0x80000000u) /* perf's PERF_TYPE_SYNTH */
		return ST_SYNTH;
	return attr_type < 6 ? (int)attr_type : ST_OTHER;
}

static int lookup(const char *tok)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(tok, names[i].name))
			return (int)i;
	return -1;
}

static void apply_all(struct script_fields *f, uint64_t bit, bool remove)
{
	for (int t = 0; t < ST_MAX; t++) {
		if (invalid(t) & bit) {
			fprintf(stderr, "'%s' not valid for %s events. Ignoring.\n",
				bit == SF_TRACE ? "trace" : "field", type_names[t]);
			continue;
		}
		if (remove) {
			f->t[t].fields &= ~bit;
			f->t[t].user_set_fields &= ~bit;
		} else {
			f->t[t].fields |= bit;
			f->t[t].user_set_fields |= bit;
		}
		f->t[t].user_set = f->t[t].wildcard = true;
	}
}

int script_fields_parse(struct script_fields *f, const char *arg)
{
	char *str = strdup(arg), *tok, *save = NULL, *colon;
	int type = -1, rc = 0;
	enum { DEFAULT, SET, ADD, REMOVE } change = DEFAULT;

	if (!str)
		return -ENOMEM;
	colon = strchr(str, ':');
	tok = str;
	if (colon) {
		*colon = '\0';
		for (int t = 0; t < ST_MAX; t++)
			if (!strcmp(str, type_names[t]))
				type = t;
		if (type < 0 || type == ST_HWCACHE || type == ST_OTHER) {
			fprintf(stderr, "Invalid event type in field string.\n");
			free(str);
			return -EINVAL;
		}
		tok = colon + 1;
		if (!strchr(tok, '+') && !strchr(tok, '-')) {
			f->t[type].fields = 0;
			f->t[type].user_set = true;
			f->t[type].wildcard = false;
		}
	} else {
		if (!*str) {
			fprintf(stderr, "Cannot set fields to 'none' for all event types.\n");
			free(str);
			return -EINVAL;
		}
		if (!strchr(str, '+') && !strchr(str, '-'))
			for (int t = 0; t < ST_MAX; t++) {
				f->t[t].fields = 0;
				f->t[t].user_set = f->t[t].wildcard = true;
			}
	}
	for (tok = strtok_r(tok, ",", &save); tok && !rc;
	     tok = strtok_r(NULL, ",", &save)) {
		int i;

		if (*tok == '+' || *tok == '-') {
			if (change == SET)
				goto badmix;
			change = *tok++ == '+' ? ADD : REMOVE;
		} else {
			if (change != SET && change != DEFAULT)
				goto badmix;
			change = SET;
		}
		i = lookup(tok);
		if (i >= 0 && names[i].bit == SF_FLAGS) {
			/* perf's print_flags: not a field, for every type, and
			 * the fields do not count as the user's for it */
			for (int t = 0; t < ST_MAX; t++) {
				if (change == REMOVE)
					f->t[t].fields &= ~SF_FLAGS;
				else
					f->t[t].fields |= SF_FLAGS;
			}
			continue;
		}
		if (i < 0) {
			fprintf(stderr, "Invalid field requested.\n");
			rc = -EINVAL;
			break;
		}
		if (type < 0) {
			apply_all(f, names[i].bit, change == REMOVE);
			continue;
		}
		if (invalid(type) & names[i].bit) {
			fprintf(stderr, "'%s' not valid for %s events.\n",
				names[i].name, type_names[type]);
			rc = -EINVAL;
			break;
		}
		if (change == REMOVE)
			f->t[type].fields &= ~names[i].bit;
		else
			f->t[type].fields |= names[i].bit;
		f->t[type].user_set_fields |= change == REMOVE ? 0 : names[i].bit;
		f->t[type].user_set = f->t[type].wildcard = true;
	}
	free(str);
	return rc;
badmix:
	fprintf(stderr, "Cannot mix +-field with overridden fields\n");
	free(str);
	return -EINVAL;
}
