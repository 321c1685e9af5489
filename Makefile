# perfkit build. `make` builds build/perfkit, build/libperfkit.{a,so};
# `make demo`, `make test` (every test), `make check` (the unit tests and the
# quick checks that need no live kernel), `make check-asan`, `make bench`,
# `make fuzz`, `make install` / `make uninstall` (PREFIX, DESTDIR, see
# README). Tests run PK_JOBS at a time (tests/run.sh says how).
BUILD   ?= build
# The top-level targets build with every CPU (make -j alone does that too).
NPROC   := $(shell nproc 2>/dev/null || echo 2)
CC      ?= gcc
SAN     ?=
V       ?= 0
Q        = $(if $(filter 1,$(V)),,@)

# The one version source: VERSION (MAJOR.MINOR.PATCH). It names the
# shared library (soname MAJOR), perfkit.pc and `perfkit --version`.
VERSION   := $(shell cat VERSION)
VER_MAJOR := $(firstword $(subst ., ,$(VERSION)))

# Libraries pkg-config knows give their flags through it; Zydis ships no
# .pc file. TE_CFLAGS: libtraceevent's include directory.
PKG_CONFIG ?= pkg-config
PC_DEPS    := libtraceevent libdw libelf libzstd zlib
TE_CFLAGS  := $(shell $(PKG_CONFIG) --cflags libtraceevent)
PC_LIBS    := $(shell $(PKG_CONFIG) --libs $(PC_DEPS))

CPPFLAGS += -Iinclude -Ilib -D_GNU_SOURCE $(TE_CFLAGS)
OPT      ?= -O2 -g
# (the Intel PT decoding path's: see HOT_LTO below)
HOT_SRCS := $(sort $(wildcard lib/pt/*.c lib/itrace/*.c))
HOT_OPT  ?= $(subst -O2,-O3,$(OPT))
CFLAGS   += $(OPT) -std=gnu11 -Wall -Wextra -Werror -Wmissing-prototypes -fPIC \
	    -fvisibility=hidden \
	    -MMD -MP
ifeq ($(SAN),1)
CFLAGS   += -fsanitize=address,undefined -fno-omit-frame-pointer \
	    -fno-sanitize-recover=undefined
LDFLAGS  += -fsanitize=address,undefined
endif
# External libraries (linked only where used, thanks to --as-needed):
#   Zydis: x86 decoding (PT flow); libtraceevent: tracepoint print formats;
#   libdw/libelf: symbols, debuginfo, unwinding; zstd/zlib: compressed
#   perf.data records and trace.dat sections.
# Libs.private of perfkit.pc: what static users link besides PC_DEPS.
EXTRA_LIBS := -lZydis -lm -lpthread
LDLIBS   += -Wl,--as-needed $(PC_LIBS) $(EXTRA_LIBS)

SO_NAME   := libperfkit.so.$(VER_MAJOR)
SO_REAL   := libperfkit.so.$(VERSION)

LIB_SRCS  := $(sort $(wildcard lib/*/*.c))
CLI_SRCS  := $(sort $(wildcard cli/*.c))
UNIT_SRCS := $(sort $(wildcard tests/unit/*.c))
TLIB_SRCS := $(sort $(wildcard tests/lib/*.c))
WL_SRCS   := $(sort $(wildcard workloads/*.c))
EX_SRCS   := $(sort $(wildcard examples/*.c))
BENCH_SRCS:= $(sort $(wildcard bench/*.c))

LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
CLI_OBJS  := $(CLI_SRCS:%.c=$(BUILD)/obj/%.o)
# The command sees the public headers only (include/perfkit), never lib/.
$(CLI_OBJS): CPPFLAGS := $(filter-out -Ilib $(TE_CFLAGS),$(CPPFLAGS))
TLIB_OBJS := $(TLIB_SRCS:%.c=$(BUILD)/obj/%.o)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
WL_BINS   := $(WL_SRCS:workloads/%.c=$(BUILD)/workloads/%)
EX_BINS   := $(EX_SRCS:examples/%.c=$(BUILD)/examples/%)
EXSO_BINS := $(EX_SRCS:examples/%.c=$(BUILD)/examples-so/%)
BENCH_BINS:= $(BENCH_SRCS:bench/%.c=$(BUILD)/bench/%)

.PHONY: all deps demo test test-only check check-only check-abi check-asan bench \
	fuzz clean man install uninstall
all: $(BUILD)/perfkit $(BUILD)/libperfkit.a $(BUILD)/libperfkit.so \
     $(WL_BINS) $(EX_BINS) $(EXSO_BINS) man

deps:
	@sh scripts/deps.sh

# The command links the libraries that ship archives statically: every
# shared object costs start-up time (page faults, relocations), and
# `perfkit stat` is timed against perf's start-up. libtraceevent stays
# shared: the plugins it loads (sched_switch's format...) link against it.
# The archive list is spelled out: pkg-config --static puts -lpthread
# among the archives and -lelf after its -lz.
PERFKIT_LDLIBS := -Wl,--as-needed -lZydis \
	$(shell $(PKG_CONFIG) --libs libtraceevent) -Wl,-Bstatic -ldw -lelf \
	-lzstd -lz -llzma -lbz2 -Wl,-Bdynamic -lm -lpthread -ldl

# Objects are rebuilt when the compiler flags change.
FLAGS_STAMP := $(BUILD)/.flags
FLAGS_TEXT := $(CC) $(CPPFLAGS) $(CFLAGS) $(HOT_OPT) $(LDFLAGS) $(LDLIBS) $(PERFKIT_LDLIBS)
$(shell mkdir -p $(BUILD); echo '$(FLAGS_TEXT)' | cmp -s - $(FLAGS_STAMP) || \
	echo '$(FLAGS_TEXT)' > $(FLAGS_STAMP))

$(BUILD)/obj/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

# Only the command's main knows the version: a new VERSION rebuilds it.
$(BUILD)/obj/cli/perfkit.o: VERSION
$(BUILD)/obj/cli/perfkit.o: CPPFLAGS += -DPK_VERSION='"$(VERSION)"'

$(BUILD)/libperfkit.a: $(LIB_OBJS)
	$(Q)rm -f $@ && ar rcs $@ $^

# The shared library: the real file, its soname link (what programs load)
# and the link the linker finds for -lperfkit.
$(BUILD)/$(SO_REAL): $(LIB_OBJS) lib/libperfkit.map
	$(Q)$(CC) -shared $(LDFLAGS) -Wl,--version-script=lib/libperfkit.map \
		-Wl,-soname,$(SO_NAME) -o $@ $(LIB_OBJS) $(LDLIBS)

$(BUILD)/$(SO_NAME): $(BUILD)/$(SO_REAL)
	$(Q)ln -sfn $(SO_REAL) $@

$(BUILD)/libperfkit.so: $(BUILD)/$(SO_NAME)
	$(Q)ln -sfn $(SO_NAME) $@

# Every PK_API declaration is exported and nothing else is.
check-abi: $(BUILD)/libperfkit.so
	$(Q)sh scripts/check_abi.sh $(BUILD)/libperfkit.so include/perfkit

# The Intel PT decoding path (lib/pt, lib/itrace, the script printer) is
# compiled with -O3, and the command links that path once more from a
# second set of objects with link-time optimization (lto/: the flow
# decoder inlined into the sample walk). The ptgen sort run, quiet
# machine, min of 5: script --itrace=b 0.83 s -> 0.77 s, pt decode
# 0.23 -> 0.20 s. The archive and the shared library keep ordinary
# objects, so what links them needs no LTO plugin; SAN=1 builds skip LTO.
$(HOT_SRCS:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/cli/script_out.o: OPT := $(HOT_OPT)
ifneq ($(SAN),1)
HOT_LTO  := $(HOT_SRCS:%.c=$(BUILD)/lto/%.o)
$(BUILD)/lto/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(HOT_OPT) -flto=auto -c $< -o $@
endif

$(BUILD)/perfkit: $(CLI_OBJS) $(HOT_LTO) $(BUILD)/libperfkit.a $(FLAGS_STAMP)
	$(Q)$(CC) $(LDFLAGS) $(if $(HOT_LTO),$(HOT_OPT) -flto=auto) -o $@ \
		$(CLI_OBJS) $(HOT_LTO) $(BUILD)/libperfkit.a $(PERFKIT_LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(TLIB_OBJS) $(BUILD)/libperfkit.a
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) -Itests/lib $(CFLAGS) $(LDFLAGS) -o $@ $< \
		$(TLIB_OBJS) $(BUILD)/libperfkit.a $(LDLIBS) $(TEST_LDLIBS_$*)

# A unit test that compiles a cli file in (white box).
$(BUILD)/tests/test_tui_term: cli/tui.c cli/tui.h
$(BUILD)/tests/test_time_range: cli/time_range.c cli/cli.h

# Test-only reference library (never linked into libperfkit).
TEST_LDLIBS_test_pt_libipt = -lipt
TEST_LDLIBS_test_pt_flow = -lipt
# skips itself where libipt-dev is missing (no intel-pt.h)
TEST_LDLIBS_test_pt_libipt_flow = $(if $(wildcard /usr/include/intel-pt.h),-lipt)
BENCH_LDLIBS_pt_packet_bench = -lipt
BENCH_LDLIBS_pt_flow_bench = -lipt

# Workloads are plain programs (no perfkit), built without sanitizers.
$(BUILD)/workloads/%: workloads/%.c
	@mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -Wall -Wextra -Werror -fno-omit-frame-pointer -o $@ $<

$(BUILD)/examples/%: examples/%.c $(BUILD)/libperfkit.a
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< \
		$(BUILD)/libperfkit.a $(LDLIBS)

# The same examples linked against the shared library, which they find
# beside their folder (rpath $ORIGIN/..): a check that the .so exports
# what programs need.
$(BUILD)/examples-so/%: examples/%.c $(BUILD)/libperfkit.so
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< -L$(BUILD) \
		-Wl,-rpath,'$$ORIGIN/..' -lperfkit

# Man pages: perfkit(1) and perfkit-CMD(1) for each docs/man/CMD.txt, the
# usage and options from the command's own -h text (scripts/mkman.sh).
MAN_TXTS  := $(sort $(wildcard docs/man/*.txt))
MAN_PAGES := $(patsubst docs/man/perfkit-perfkit.1,docs/man/perfkit.1, \
	     $(MAN_TXTS:docs/man/%.txt=docs/man/perfkit-%.1))
MAN_PAGES := $(MAN_PAGES:docs/man/%=$(BUILD)/man/%)
man: $(MAN_PAGES)

$(BUILD)/man/perfkit.1: docs/man/perfkit.txt $(BUILD)/perfkit \
			scripts/mkman.sh VERSION \
			scripts/perfkit-completion.bash
	@mkdir -p $(@D)
	$(Q)sh scripts/mkman.sh $(BUILD)/perfkit $(VERSION) $< > $@.tmp && \
		mv $@.tmp $@

$(BUILD)/man/perfkit-%.1: docs/man/%.txt $(BUILD)/perfkit scripts/mkman.sh \
			  VERSION scripts/perfkit-completion.bash
	@mkdir -p $(@D)
	$(Q)sh scripts/mkman.sh $(BUILD)/perfkit $(VERSION) $< > $@.tmp && \
		mv $@.tmp $@

# make install [PREFIX=/usr/local] [DESTDIR=stage]: the command, both
# libraries with the soname and dev links, the headers, perfkit.pc, the
# man pages, the bash completion and the license.
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR     ?= $(PREFIX)/share/man
COMPDIR    ?= $(PREFIX)/share/bash-completion/completions
DOCDIR     ?= $(PREFIX)/share/doc/perfkit
D          := $(DESTDIR)
# perfkit.pc names the directories under PREFIX through ${prefix}
PC_LIBDIR  = $(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))
PC_INCDIR  = $(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))
HEADERS    := $(notdir $(wildcard include/perfkit/*.h))

install: $(BUILD)/perfkit $(BUILD)/libperfkit.a $(BUILD)/libperfkit.so man
	install -d $(D)$(BINDIR) $(D)$(LIBDIR)/pkgconfig \
		$(D)$(INCLUDEDIR)/perfkit $(D)$(MANDIR)/man1 $(D)$(COMPDIR) \
		$(D)$(DOCDIR)
	install -m 755 $(BUILD)/perfkit $(D)$(BINDIR)/perfkit
	install -m 644 $(BUILD)/libperfkit.a $(D)$(LIBDIR)/libperfkit.a
	install -m 755 $(BUILD)/$(SO_REAL) $(D)$(LIBDIR)/$(SO_REAL)
	ln -sfn $(SO_REAL) $(D)$(LIBDIR)/$(SO_NAME)
	ln -sfn $(SO_NAME) $(D)$(LIBDIR)/libperfkit.so
	install -m 644 $(HEADERS:%=include/perfkit/%) $(D)$(INCLUDEDIR)/perfkit
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(PC_LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(PC_INCDIR)|' -e 's|@VERSION@|$(VERSION)|' \
	    -e 's|@PC_DEPS@|$(PC_DEPS)|' -e 's|@EXTRA_LIBS@|$(EXTRA_LIBS)|' \
	    scripts/perfkit.pc.in > $(D)$(LIBDIR)/pkgconfig/perfkit.pc
	chmod 644 $(D)$(LIBDIR)/pkgconfig/perfkit.pc
	install -m 644 $(MAN_PAGES) $(D)$(MANDIR)/man1
	install -m 644 scripts/perfkit-completion.bash $(D)$(COMPDIR)/perfkit
	install -m 644 LICENSE $(D)$(DOCDIR)/LICENSE

uninstall:
	rm -f $(D)$(BINDIR)/perfkit $(D)$(LIBDIR)/libperfkit.a \
	      $(D)$(LIBDIR)/$(SO_REAL) $(D)$(LIBDIR)/$(SO_NAME) \
	      $(D)$(LIBDIR)/libperfkit.so $(D)$(LIBDIR)/pkgconfig/perfkit.pc \
	      $(HEADERS:%=$(D)$(INCLUDEDIR)/perfkit/%) \
	      $(MAN_PAGES:$(BUILD)/man/%=$(D)$(MANDIR)/man1/%) \
	      $(D)$(COMPDIR)/perfkit $(D)$(DOCDIR)/LICENSE
	-rmdir $(D)$(INCLUDEDIR)/perfkit $(D)$(DOCDIR) 2>/dev/null

$(BUILD)/bench/%: bench/%.c $(BUILD)/libperfkit.a
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< \
		$(BUILD)/libperfkit.a $(LDLIBS) $(BENCH_LDLIBS_$*)

demo: deps
	$(Q)$(MAKE) --no-print-directory -j$(NPROC) all
	$(Q)sh scripts/demo.sh $(BUILD)

test: deps
	$(Q)$(MAKE) --no-print-directory -j$(NPROC) test-only

test-only: all $(UNIT_BINS)
	$(Q)sh tests/run.sh $(BUILD)

check: deps
	$(Q)$(MAKE) --no-print-directory -j$(NPROC) check-only

check-only: all $(UNIT_BINS)
	$(Q)sh tests/run.sh $(BUILD) check

check-asan: deps
	$(Q)$(MAKE) --no-print-directory -j$(NPROC) BUILD=build-asan SAN=1 OPT="-O1 -g" \
		test-only

bench: deps
	$(Q)$(MAKE) --no-print-directory -j$(NPROC) all $(BENCH_BINS)
	$(Q)sh bench/run.sh $(BUILD)

# libFuzzer targets: one per parser (fuzz/fuzz_*.c), run FUZZ_SECONDS each;
# a target that fails stops the run (artifacts in build-fuzz/artifacts/NAME;
# the crash guard's children, killed on purpose, leave theirs there too).
FUZZ_SECONDS ?= 20
FUZZ_SRCS := $(sort $(wildcard fuzz/fuzz_*.c))
FUZZ_BINS := $(FUZZ_SRCS:fuzz/%.c=build-fuzz/%)
FUZZ_LIB_OBJS := $(LIB_SRCS:%.c=build-fuzz/obj/%.o)
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer-no-link,address,undefined \
	      -Iinclude -Ilib -D_GNU_SOURCE $(TE_CFLAGS) -std=gnu11 -MMD -MP

build-fuzz/obj/%.o: %.c
	@mkdir -p $(@D)
	$(Q)clang $(FUZZ_FLAGS) -c $< -o $@

build-fuzz/%: fuzz/%.c $(FUZZ_LIB_OBJS)
	$(Q)clang $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJS) $(LDLIBS)

fuzz: deps
	$(Q)$(MAKE) --no-print-directory -j$(NPROC) $(FUZZ_BINS)
	$(Q)for f in $(FUZZ_BINS); do n=$${f#build-fuzz/}; \
	    mkdir -p build-fuzz/corpus/$$n; \
	    echo "fuzz: $$n for $(FUZZ_SECONDS)s"; \
	    seeds=; [ -d fuzz/seeds/$$n ] && seeds=fuzz/seeds/$$n; \
	    mkdir -p build-fuzz/artifacts/$$n; \
	    LSAN_OPTIONS=suppressions=$(CURDIR)/tests/live/ftrace-lsan.supp \
	    $$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=0 \
	        -artifact_prefix=build-fuzz/artifacts/$$n/ \
	        build-fuzz/corpus/$$n $$seeds > build-fuzz/$$n.log 2>&1; \
	    rc=$$?; tail -n 2 build-fuzz/$$n.log; \
	    [ $$rc = 0 ] || { echo "fuzz: $$n failed (build-fuzz/$$n.log)"; exit 1; }; \
	done

clean:
	rm -rf build build-asan build-fuzz

-include $(shell find $(BUILD)/obj $(BUILD)/lto -name '*.d' 2>/dev/null)
# (the fuzz objects too: a changed header rebuilds them)
-include $(shell find build-fuzz/obj -name '*.d' 2>/dev/null)
.SECONDARY:
