# cgscope -- one plain, non-recursive Makefile.
#   make                 build ./cgscope (and libcgscope.a)
#   make test            unit tests (cmocka), CLI tests, golden tests on ../shared/fixtures
#   make SANITIZE=address,undefined test
#   make valgrind        the unit tests under valgrind
#   make coverage        the tests on a gcov build, then line coverage per file (tests/coverage.sh)
#   make bench           benchmarks on generated 100k/1M-node graphs (not tests)
#   make profiler       the CUPTI injection library (where cupti.h is: CUDA_HOME, CUPTI_INC)
#   make profiler-debian  that, against Debian's CUPTI 11.8 fetched into build/ (CI)
#   make op-list         regenerate lib/ops/op-list.h from tools/ops/ (make check-ops compares,
#                        and checks lib/ops/inductor-lowerings.h against its JSON summary)
#   make check-layering  lib/ must not include viz/, profiler/, curses, gvc or cupti
#   make deps            install the missing Debian packages (tools/deps.sh, apt-get)
#   make install         PREFIX=/usr/local DESTDIR=: the binary, libcgscope.a and its headers,
#                        cgscope.pc, man pages, bash/zsh completion, ops/, the Python bridge
#   make uninstall       remove what make install put there (same PREFIX and DESTDIR)
#   make DEVELOPER=1     warnings are errors (CI)
#   make V=1             show the commands

CC       ?= cc
CUDA_HOME ?= /usr/local/cuda
PKG_CONFIG ?= pkg-config
FIXTURES ?= $(abspath ../shared/fixtures)

LIB_PKGS  = libcjson libzip
VIZ_PKGS  = libgvc ncursesw
TEST_PKGS = cmocka

comma := ,
OPT      ?= -O2
CFLAGS   ?= $(OPT) -g
WARNINGS = -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wwrite-strings -Wpointer-arith -Wformat=2 -Wundef -Wvla -Wdouble-promotion \
           -Wimplicit-fallthrough -fno-common
ifeq ($(DEVELOPER),1)
WARNINGS += -Werror
endif
CPPFLAGS += -I. -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
ALL_CFLAGS = -std=c11 $(WARNINGS) $(CFLAGS) -MMD -MP
ifneq ($(SANITIZE),)
ALL_CFLAGS += -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
LDFLAGS    += -fsanitize=$(SANITIZE)
endif

pc_cflags = $(shell $(PKG_CONFIG) --cflags $(1) 2>/dev/null)
pc_libs   = $(shell $(PKG_CONFIG) --libs $(1) 2>/dev/null)
LIB_CFLAGS  := $(call pc_cflags,$(LIB_PKGS))
# Only cJSON is linked. libzip, Graphviz and ncursesw are opened by the commands that use them
# (lib/base/dynlib.h): mapping and relocating their 13 shared objects cost every process about 2.5
# ms of its start (docs/perf.md); their names come from $(B)/gen/sonames.h. The C++ runtime
# (the kernel-name demangler) is linked statically for the same reason (0.4 ms).
LIB_LIBS    := $(call pc_libs,libcjson) -Wl,-Bstatic -lstdc++ -Wl,-Bdynamic -lm -lpthread -ldl
VIZ_CFLAGS  := $(call pc_cflags,$(VIZ_PKGS))
TEST_CFLAGS := $(call pc_cflags,$(TEST_PKGS))
# test-load-pt2 writes its archives with libzip itself
TEST_LIBS   := $(call pc_libs,$(TEST_PKGS)) $(call pc_libs,libzip)
SONAMES_H    = $(B)/gen/sonames.h

ifneq ($(V),1)
QUIET_CC = @echo '   CC    ' $@;
QUIET_AR = @echo '   AR    ' $@;
QUIET_LD = @echo '   LINK  ' $@;
QUIET_GEN = @echo '   GEN   ' $@;
endif

B ?= $(if $(SANITIZE),build-$(subst $(comma),-,$(SANITIZE)),build)
LIB_SRC   = $(sort $(wildcard lib/*/*.c))
VIZ_SRC   = $(sort $(wildcard viz/*.c))
TOOL_SRC  = $(sort $(wildcard tools/*.c))
TEST_SRC  = $(sort $(wildcard tests/test-*.c))
BENCH_SRC = $(sort $(wildcard tests/bench/bench-*.c))
FUZZ_SRC  = $(sort $(wildcard tests/fuzz/fuzz-*.c))
FUZZ_NAMES = $(FUZZ_SRC:tests/fuzz/fuzz-%.c=%)
# each fuzz target built with a plain main (tests/fuzz/driver.c) replays corpora with any compiler
REPLAY_BIN = $(FUZZ_NAMES:%=$(B)/fuzz/replay-%)
# the shape pass is one module in seven files (lib/passes/shapes-int.h): its objects are linked
# into one (ld -r) in which only cgs_* names stay global, so its helpers (A, K, broadcast, ...)
# are as private to it as when they were static in one file, in libcgscope.a too
SHAPES_OBJ = $(patsubst %.c,$(B)/%.o,$(sort $(wildcard lib/passes/shapes*.c)))
SHAPES_MOD = $(B)/lib/passes/shape-pass.o
LIB_OBJ   = $(filter-out $(SHAPES_OBJ),$(LIB_SRC:%.c=$(B)/%.o)) $(SHAPES_MOD)
VIZ_OBJ   = $(VIZ_SRC:%.c=$(B)/%.o)
TOOL_OBJ  = $(TOOL_SRC:%.c=$(B)/%.o)
TEST_BIN  = $(TEST_SRC:tests/%.c=$(B)/tests/%)
BENCH_BIN = $(BENCH_SRC:tests/bench/%.c=$(B)/bench/%)
GEN_BIN   = $(B)/bench/gen-graph
# the default build leaves ./cgscope in the repository root; others (asan) keep theirs in $(B)
BIN       = $(if $(filter build,$(B)),cgscope,$(B)/cgscope)
LIBCGS    = $(B)/libcgscope.a
# the shared library: its SONAME changes when the ABI does (SOVERSION)
SOVERSION = 0
LIBCGS_SO = $(B)/libcgscope.so.$(SOVERSION)
LIBVIZ    = $(B)/libcgsviz.a

# the CUPTI profiler builds only where CUDA's headers are: the toolkit (CUDA_HOME), torch's
# own (CUDA_HOME=$SP/nvidia/cu13, the pip layout), or Debian's (CUPTI_INC=/usr/include)
CUPTI_INC    ?= $(firstword $(wildcard $(CUDA_HOME)/include/cupti.h $(CUDA_HOME)/extras/CUPTI/include/cupti.h))
HAVE_CUPTI   := $(CUPTI_INC)
CUPTI_INCDIR  = $(patsubst %/,%,$(dir $(CUPTI_INC)))
CUPTI_LIBDIR ?= $(patsubst %/,%,$(dir $(firstword $(wildcard $(CUDA_HOME)/lib64/libcupti.so* \
                $(CUDA_HOME)/lib/libcupti.so* $(CUDA_HOME)/extras/CUPTI/lib64/libcupti.so*))))
# -lcupti where the unversioned name exists; the pip package has only libcupti.so.13
CUPTI_LINK   ?= $(if $(wildcard $(CUPTI_LIBDIR)/libcupti.so),-lcupti,\
                -l:$(notdir $(firstword $(wildcard $(CUPTI_LIBDIR)/libcupti.so.*))))
PROFILER_SO   = $(B)/profiler/libcgscope-cupti.so
# the injected library is built plainly (no sanitizer runtime inside someone's process)
PROF_CFLAGS  ?= -O2 -g

.PHONY: coverage profiler profiler-debian fuzz fuzz-bins install uninstall man op-list check-ops all test check unit-test cli-test valgrind asan bench check-layering deps format clean

all: $(BIN) $(LIBCGS_SO) $(if $(HAVE_CUPTI),$(PROFILER_SO))
NVTX_CLIENT = $(B)/profiler/nvtx-client

# make profiler: the CUPTI injection library (needs cupti.h; see CUPTI_INC above)
profiler: $(PROFILER_SO)
$(PROFILER_SO): profiler/cgscope-cupti.c lib/run/proftrace.h
	@if [ -z "$(CUPTI_INC)" ]; then echo "make profiler: no cupti.h under CUDA_HOME=$(CUDA_HOME)" \
		"(set CUDA_HOME to a CUDA with include/cupti.h, or CUPTI_INC=/path/to/cupti.h)"; exit 2; fi
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) -std=c11 $(WARNINGS) $(PROF_CFLAGS) -fPIC -shared -fvisibility=hidden \
		-I. -isystem $(CUPTI_INCDIR) $(PROF_EXTRA_INC) -o $@.tmp$$$$ $< \
		-L$(CUPTI_LIBDIR) $(CUPTI_LINK) -Wl,-rpath,$(CUPTI_LIBDIR) -lpthread && mv -f $@.tmp$$$$ $@
# make profiler-debian: the profiler built against Debian's CUDA 11.8 CUPTI (fetched into
# build/cupti-debian by tools/cupti-debian.sh, nothing installed), then the injection tests on it
CUPTI_DEBIAN ?= build/cupti-debian
DEB_MULTIARCH := $(shell dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
profiler-debian: $(BIN)
	@sh tools/cupti-debian.sh $(CUPTI_DEBIAN)
	@$(MAKE) --no-print-directory B=build-cupti118 \
		CUPTI_INC=$(abspath $(CUPTI_DEBIAN))/usr/include/cupti.h \
		CUPTI_LIBDIR=$(abspath $(CUPTI_DEBIAN))/usr/lib/$(DEB_MULTIARCH) \
		build-cupti118/profiler/libcgscope-cupti.so build-cupti118/profiler/nvtx-client
	@echo "profiler-debian: built against CUPTI 11.8; injection tests:"
	@CGSCOPE=$(abspath $(BIN)) BUILD=build-cupti118 sh tests/cli/profile.sh
# a CPU-only NVTX client the CLI tests inject the library into (tests/profiler/nvtx-client.c)
$(NVTX_CLIENT): tests/profiler/nvtx-client.c
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) -std=c11 $(PROF_CFLAGS) -D_DEFAULT_SOURCE -isystem $(CUPTI_INCDIR) -o $@ $< -ldl -lpthread

# the shared objects lib/base/dynlib.h opens, as the linker resolves each package's flags
$(SONAMES_H): Makefile tools/sonames.sh
	@mkdir -p $(dir $@)
	$(QUIET_GEN)sh tools/sonames.sh "$(CC)" CGS_SONAMES_GVC="$(call pc_libs,libgvc)" \
		CGS_SONAMES_CURSES="$(call pc_libs,ncursesw)" CGS_SONAMES_ZIP="$(call pc_libs,libzip)" \
		CGS_SONAMES_Z="$(call pc_libs,zlib)" CGS_SONAMES_LZMA="$(call pc_libs,liblzma)" \
		CGS_SONAMES_ZSTD="$(call pc_libs,libzstd)" > $@.tmp$$$$ && mv -f $@.tmp$$$$ $@
$(B)/lib/readers/zip-api.o $(B)/lib/readers/unpack-api.o $(B)/viz/gv-api.o $(B)/viz/curses-api.o: $(SONAMES_H)
$(B)/lib/readers/zip-api.o $(B)/lib/readers/unpack-api.o $(B)/viz/gv-api.o $(B)/viz/curses-api.o: CPPFLAGS += -I$(B)

# position-independent: the same objects make libcgscope.a and libcgscope.so
$(B)/lib/%.o: lib/%.c
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -fPIC $(LIB_CFLAGS) -c -o $@ $<
$(B)/viz/%.o: viz/%.c
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(LIB_CFLAGS) $(VIZ_CFLAGS) -c -o $@ $<
$(B)/tools/%.o: tools/%.c
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(LIB_CFLAGS) $(VIZ_CFLAGS) -c -o $@ $<
# the page `cgscope html` writes: its CSS and JavaScript (tools/html/) as C strings
$(B)/gen/html-assets.h: tools/html/report.css tools/html/report.js tools/html/embed.sh
	@mkdir -p $(dir $@)
	$(QUIET_GEN)sh tools/html/embed.sh tools/html/report.css tools/html/report.js >$@.tmp && mv -f $@.tmp $@
$(B)/tools/cmd-html.o: $(B)/gen/html-assets.h
$(B)/tools/cmd-html.o: CPPFLAGS += -I$(B)/gen
$(B)/tests/%.o: tests/%.c
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(LIB_CFLAGS) $(VIZ_CFLAGS) $(TEST_CFLAGS) \
		-DFIXTURES_DIR='"$(FIXTURES)"' -c -o $@ $<

# archives and binaries are built beside their target and renamed, so that a
# concurrent build never sees a half-written file
$(LIBCGS): $(LIB_OBJ)
	$(QUIET_AR)rm -f $@.tmp$$$$ && $(AR) rcs $@.tmp$$$$ $^ && mv -f $@.tmp$$$$ $@
LD      ?= ld
OBJCOPY ?= objcopy
$(SHAPES_MOD): $(SHAPES_OBJ)
	$(QUIET_LD)$(LD) -r -o $@.tmp$$$$ $(SHAPES_OBJ) && \
		$(OBJCOPY) --wildcard --keep-global-symbol='cgs_*' $@.tmp$$$$ $@ && rm -f $@.tmp$$$$
$(LIBCGS_SO): $(LIB_OBJ) tools/libcgscope.map
	$(QUIET_LD)$(CC) -shared -Wl,-soname,libcgscope.so.$(SOVERSION) -Wl,--no-undefined \
		-Wl,--version-script,tools/libcgscope.map $(LDFLAGS) \
		-o $@.tmp$$$$ $(LIB_OBJ) $(LIB_LIBS) && mv -f $@.tmp$$$$ $@
$(LIBVIZ): $(VIZ_OBJ) | $(LIBCGS)
	$(QUIET_AR)rm -f $@.tmp$$$$ && $(AR) rcs $@.tmp$$$$ $(VIZ_OBJ) && mv -f $@.tmp$$$$ $@

$(BIN): $(TOOL_OBJ) $(LIBVIZ) $(LIBCGS)
	$(QUIET_LD)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@.tmp$$$$ $(TOOL_OBJ) $(LIBVIZ) $(LIBCGS) \
		$(LIB_LIBS) && mv -f $@.tmp$$$$ $@

# each tests/test-NAME.c is one cmocka binary, linked with everything but main
TOOL_LIB_OBJ = $(filter-out $(B)/tools/cgscope.o,$(TOOL_OBJ))
$(B)/tests/test-%: $(B)/tests/test-%.o $(LIBVIZ) $(LIBCGS)
	$(QUIET_LD)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIBVIZ) $(LIBCGS) \
		$(TEST_LIBS) $(LIB_LIBS)

$(B)/bench/%: tests/bench/%.c $(LIBVIZ) $(LIBCGS)
	@mkdir -p $(dir $@)
	$(QUIET_LD)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(LIB_CFLAGS) $(VIZ_CFLAGS) $(LDFLAGS) -o $@ $< \
		$(LIBVIZ) $(LIBCGS) $(LIB_LIBS)

# simdjson's parse of the same files, the loader's yardstick in ratios.py (issue 37): built
# where Debian's libsimdjson-dev is (tools/deps.sh --test installs it), else not measured
HAVE_SIMDJSON := $(shell pkg-config --exists simdjson 2>/dev/null && echo yes)
SIMDJSON_BIN  = $(if $(HAVE_SIMDJSON),$(B)/bench/simdjson-parse)
$(B)/bench/simdjson-parse: tests/bench/simdjson-parse.cc
	@mkdir -p $(dir $@)
	$(QUIET_LD)$(CXX) -std=c++17 -O2 $$(pkg-config --cflags simdjson) -o $@ $< \
		$$(pkg-config --libs simdjson)

# the registry is generated from torch's own operator data (tools/ops/, docs/ops.md)
op-list:
	@python3 tools/gen-op-list.py
check-ops:
	@python3 tools/gen-op-list.py --check
	@python3 tools/gen-inductor-lowerings.py check docs/inductor-lowerings-2.11.json lib/ops/inductor-lowerings.h

$(B)/fuzz/replay-%: tests/fuzz/fuzz-%.c tests/fuzz/driver.c $(LIBVIZ) $(LIBCGS)
	@mkdir -p $(dir $@)
	$(QUIET_LD)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(LIB_CFLAGS) $(VIZ_CFLAGS) $(LDFLAGS) -o $@ $< \
		tests/fuzz/driver.c $(LIBVIZ) $(LIBCGS) $(LIB_LIBS)

# libFuzzer builds (clang): make fuzz FUZZ_SECONDS=60 runs every target that long on its corpus
# (seeded from the samples, tests/bad, tests/fuzz/seeds and tests/fuzz/regress) and prints the
# executions each reached; a crash leaves its input in build-fuzz/crash-<target>-*
FUZZ_SECONDS ?= 30
FUZZ_CC ?= clang
$(B)/fuzz/fuzz-%: tests/fuzz/fuzz-%.c $(LIBVIZ) $(LIBCGS)
	@mkdir -p $(dir $@)
	$(QUIET_LD)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(LIB_CFLAGS) $(VIZ_CFLAGS) $(LDFLAGS) \
		-fsanitize=fuzzer -o $@ $< $(LIBVIZ) $(LIBCGS) $(LIB_LIBS)
fuzz-bins: $(FUZZ_NAMES:%=$(B)/fuzz/fuzz-%)
fuzz:
	@$(MAKE) --no-print-directory B=build-fuzz CC=$(FUZZ_CC) SANITIZE=address,undefined,float-cast-overflow \
		OPT=-O1 CFLAGS="-O1 -g -fsanitize=fuzzer-no-link" fuzz-bins
	@sh tests/fuzz/run.sh build-fuzz $(FUZZ_SECONDS) $(FUZZ_NAMES)

test check: $(BIN) $(TEST_BIN) $(REPLAY_BIN) $(if $(HAVE_CUPTI),$(PROFILER_SO) $(NVTX_CLIENT)) check-ops check-layering
	@CGSCOPE=$(abspath $(BIN)) FIXTURES=$(FIXTURES) BUILD=$(B) sh tests/run-tests.sh $(TEST_BIN)

unit-test: $(TEST_BIN)
	@FIXTURES=$(FIXTURES) sh tests/run-tests.sh --unit-only $(TEST_BIN)

valgrind: $(BIN) $(TEST_BIN)
	@CGSCOPE=$(abspath $(BIN)) FIXTURES=$(FIXTURES) VALGRIND=1 sh tests/run-tests.sh $(TEST_BIN)

asan:
	$(MAKE) SANITIZE=address,undefined,float-cast-overflow OPT=-O1 test

# make coverage: the test suite on a gcov build (build-cov), then line coverage per file
coverage:
	@rm -f $$(find build-cov -name '*.gcda' 2>/dev/null)
	-@$(MAKE) --no-print-directory B=build-cov OPT=-O0 CFLAGS="-O0 -g --coverage" \
		LDFLAGS="--coverage" test
	@sh tests/coverage.sh build-cov

BENCH_DIR = $(B)/bench-data
BENCH_GRAPHS = $(BENCH_DIR)/g100k.json $(BENCH_DIR)/g1m.json
$(BENCH_DIR)/g100k.json: $(GEN_BIN)
	@mkdir -p $(dir $@)
	@echo '   GEN   ' $@; $(GEN_BIN) 100000 > $@.tmp && mv -f $@.tmp $@
$(BENCH_DIR)/g1m.json: $(GEN_BIN)
	@mkdir -p $(dir $@)
	@echo '   GEN   ' $@; $(GEN_BIN) 1000000 > $@.tmp && mv -f $@.tmp $@

# real graphs and logs for the side-by-side ratios (tests/bench/ratios.py)
$(BENCH_DIR)/models/gpt2_48.dynamo.json: tests/data/models.tar.xz
	@mkdir -p $(BENCH_DIR) && tar -xJf $< -C $(BENCH_DIR) models/gpt2_48.dynamo.json && touch $@
$(BENCH_DIR)/tlparse/inputs: tests/data/tlparse/inputs.tar.xz
	@mkdir -p $(BENCH_DIR)/tlparse && tar -xJf $< -C $(BENCH_DIR)/tlparse && touch $@
# a folder of eight training runs' logs (each the 18 trace-graph logs in one, 9.3 MB, xz)
$(BENCH_DIR)/training-logs: $(wildcard tests/data/tracegraphs/*/trace/*.log.xz)
	@echo '   GEN   ' $@; rm -rf $@ $@.tmp && mkdir -p $@.tmp && \
	for f in $^; do xz -dc $$f || exit 1; done | xz -c >$@.tmp/rank_0.log.xz && \
	for i in 1 2 3 4 5 6 7; do cp $@.tmp/rank_0.log.xz $@.tmp/rank_$$i.log.xz; done && mv $@.tmp $@
# one run's log of the same eight, in one file (74 MB unpacked, xz)
$(BENCH_DIR)/one-run.log.xz: $(BENCH_DIR)/training-logs
	@echo '   GEN   ' $@; for f in $</*.log.xz; do xz -dc $$f || exit 1; done | xz -c >$@.tmp && \
	mv -f $@.tmp $@

# every benchmark runs, and the target fails at the end if any missed its target
bench: $(BIN) $(BENCH_BIN) $(SIMDJSON_BIN) $(BENCH_GRAPHS) \
	$(BENCH_DIR)/models/gpt2_48.dynamo.json $(BENCH_DIR)/tlparse/inputs $(BENCH_DIR)/training-logs \
	$(BENCH_DIR)/one-run.log.xz
	@rc=0; for b in $(BENCH_BIN); do case $$b in *gen-graph|*bench-scale) continue;; esac; \
		$$b $(BENCH_GRAPHS) || rc=1; done; \
		$(B)/bench/bench-scale $(abspath $(BIN)) $(GEN_BIN) $(BENCH_DIR) || rc=1; \
		sh tests/bench/html.sh $(abspath $(BIN)) $(BENCH_DIR)/g100k.json || rc=1; \
		python3 tests/bench/ratios.py $(abspath $(BIN)) --graph $(BENCH_DIR)/models/gpt2_48.dynamo.json \
			--graph $(BENCH_DIR)/g100k.json --logs $(BENCH_DIR)/tlparse/inputs \
			--logs tests/data/tracegraphs --log-source $(BENCH_DIR)/training-logs \
			--log-source $(BENCH_DIR)/one-run.log.xz \
			--html-graph $(BENCH_DIR)/models/gpt2_48.dynamo.json \
			--bench-load $(B)/bench/bench-load $(if $(SIMDJSON_BIN),--simdjson $(SIMDJSON_BIN)) \
			|| rc=1; exit $$rc

check-layering: $(LIBCGS)
	@sh tools/check-layering.sh || exit 1; \
	bad=$$(grep -nE '#include *[<"](viz/|profiler/|tools/|curses|ncurses|gvc|cgraph|graphviz/|cupti|cuda)' lib/*/*.[ch] lib/*.h); \
	if [ -n "$$bad" ]; then echo "layering violation: lib/ must not include these:"; \
		echo "$$bad"; exit 1; fi; \
	bad=$$(grep -nE '#include *[<"](tools/|profiler/)' viz/*.c viz/*.h 2>/dev/null); \
	if [ -n "$$bad" ]; then echo "layering violation: viz/ must not include these:"; \
		echo "$$bad"; exit 1; fi; \
	bad=$$(grep -lE '#include *[<"]cupti' lib/*/* lib/*.h viz/* tools/*.c tools/*.h 2>/dev/null); \
	if [ -n "$$bad" ]; then echo "layering violation: only profiler/ may include cupti:"; \
		echo "$$bad"; exit 1; fi; \
	bad=$$(nm -A $(LIBCGS) 2>/dev/null | grep -E ' U (printf|fprintf|vprintf|vfprintf|puts|fputs|putchar|putc|fputc|perror|exit|_exit|_Exit)$$'); \
	if [ -n "$$bad" ]; then echo "layering violation: lib/ prints or exits (nm):"; \
		echo "$$bad"; exit 1; fi; \
	echo "layering ok"

deps:
	@sh tools/deps.sh

# ---- installing ------------------------------------------------------------------------------
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR    ?= $(PREFIX)/share
MANDIR     ?= $(DATADIR)/man
VERSION    := $(shell sed -n 's/^\#define CGS_VERSION "\(.*\)"/\1/p' tools/cmd.h)
COMMANDS   := $(shell sed -n 's/^CMD(\(.*\))/\1/p' tools/cmd-list.h)
INSTALL    ?= install
MAN_PAGES   = $(B)/man/cgscope.1 $(COMMANDS:%=$(B)/man/cgscope-%.1)

# man pages come from the same tables as --help (cgscope help --man)
$(B)/man/cgscope.1: $(BIN)
	@mkdir -p $(dir $@)
	@echo '   MAN   ' $@; ./$(BIN) help --man > $@.tmp && mv -f $@.tmp $@
$(B)/man/cgscope-%.1: $(BIN)
	@mkdir -p $(dir $@)
	@echo '   MAN   ' $@; ./$(BIN) help --man $* > $@.tmp && mv -f $@.tmp $@
man: $(MAN_PAGES)

# the headers installed: lib/cgscope.h and what it includes (the public API), no more
PUBLIC_HEADERS = lib/base/arena.h lib/base/buf.h lib/base/diag.h lib/base/nearest.h lib/ops/ops.h \
                 lib/ops/op-list.h \
                 lib/ir/graph.h lib/ir/symexpr.h lib/ir/dtype-list.h lib/readers/file.h \
                 lib/readers/load.h lib/readers/opdecl.h lib/readers/sniff.h lib/readers/unpack.h \
                 lib/passes/layout.h lib/passes/shapes.h lib/passes/split.h lib/run/cachesim.h \
                 lib/run/dash.h lib/run/follow.h lib/run/prof.h
# where Python finds packages for this PREFIX (Debian: /usr/local/lib/python3.X/dist-packages,
# /usr/lib/python3/dist-packages); a cgscope_torch.pth there puts the bridge on sys.path
PYTHON     ?= python3
PYSITE     ?= $(shell $(PYTHON) -c "import sys; v = '%d.%d' % sys.version_info[:2]; p = '$(PREFIX)'; \
                print(p + '/lib/python3/dist-packages' if p == '/usr' else p + '/lib/python' + v + '/dist-packages')" 2>/dev/null)

# the .pc is written at install time, for the PREFIX and LIBDIR of this install (never a stale
# one from an earlier install with other values)
install: $(BIN) $(LIBCGS) $(LIBCGS_SO) $(MAN_PAGES)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig \
		$(DESTDIR)$(INCLUDEDIR)/cgscope/lib $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(DATADIR)/cgscope/ops $(DESTDIR)$(DATADIR)/cgscope/python \
		$(DESTDIR)$(DATADIR)/bash-completion/completions $(DESTDIR)$(DATADIR)/zsh/site-functions
	$(INSTALL) -m 755 $(BIN) $(DESTDIR)$(BINDIR)/cgscope
	$(INSTALL) -m 644 $(LIBCGS) $(DESTDIR)$(LIBDIR)/libcgscope.a
	$(INSTALL) -m 755 $(LIBCGS_SO) $(DESTDIR)$(LIBDIR)/libcgscope.so.$(SOVERSION)
	ln -sf libcgscope.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libcgscope.so
	for h in $(PUBLIC_HEADERS); do $(INSTALL) -d $(DESTDIR)$(INCLUDEDIR)/cgscope/$$(dirname $$h) && \
		$(INSTALL) -m 644 $$h $(DESTDIR)$(INCLUDEDIR)/cgscope/$$h || exit 1; done
	$(INSTALL) -m 644 lib/cgscope.h $(DESTDIR)$(INCLUDEDIR)/cgscope/cgscope.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
		-e 's|@VERSION@|$(VERSION)|' tools/cgscope.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/cgscope.pc
	$(INSTALL) -m 644 $(MAN_PAGES) $(DESTDIR)$(MANDIR)/man1/
	$(INSTALL) -m 644 ops/*.ops $(DESTDIR)$(DATADIR)/cgscope/ops/
	$(INSTALL) -m 644 tools/python/cgscope_torch.py $(DESTDIR)$(DATADIR)/cgscope/python/
	$(INSTALL) -m 644 tools/completion/cgscope.bash \
		$(DESTDIR)$(DATADIR)/bash-completion/completions/cgscope
	$(INSTALL) -m 644 tools/completion/_cgscope $(DESTDIR)$(DATADIR)/zsh/site-functions/_cgscope
	@# a program linked with `pkg-config --libs cgscope` starts only once the loader knows the
	@# library: the cache refreshed where we may, else said
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null 2>&1; then \
		ldconfig && echo "install: ran ldconfig (libcgscope.so.$(SOVERSION) in $(LIBDIR))"; \
	else echo "install: before a program linked with pkg-config --libs cgscope can start, run" \
		"ldconfig as root (or set LD_LIBRARY_PATH=$(LIBDIR))"; fi
	@if [ -n "$(PYSITE)" ]; then $(INSTALL) -d $(DESTDIR)$(PYSITE) && \
		echo "$(DATADIR)/cgscope/python" > $(DESTDIR)$(PYSITE)/cgscope_torch.pth && \
		echo "install: the Python bridge: $(PYSITE)/cgscope_torch.pth puts $(DATADIR)/cgscope/python on sys.path" && \
		if ! $(PYTHON) -c "import sys; sys.exit(0 if '$(PYSITE)' in sys.path else 1)" 2>/dev/null; then \
		echo "install: $(PYSITE) is not on $(PYTHON)'s path: use PYTHONPATH=$(DATADIR)/cgscope/python"; fi; \
	else echo "install: no $(PYTHON) here: use PYTHONPATH=$(DATADIR)/cgscope/python for the bridge"; fi
	@if [ -f $(PROFILER_SO) ]; then $(INSTALL) -d $(DESTDIR)$(LIBDIR)/cgscope && \
		echo "$(INSTALL) -m 755 $(PROFILER_SO) $(DESTDIR)$(LIBDIR)/cgscope/" && \
		$(INSTALL) -m 755 $(PROFILER_SO) $(DESTDIR)$(LIBDIR)/cgscope/; \
	else echo "install: no $(PROFILER_SO) (no cupti.h here): cgscope profile will say so"; fi

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/cgscope $(DESTDIR)$(LIBDIR)/libcgscope.a \
		$(DESTDIR)$(LIBDIR)/libcgscope.so $(DESTDIR)$(LIBDIR)/libcgscope.so.$(SOVERSION) \
		$(if $(PYSITE),$(DESTDIR)$(PYSITE)/cgscope_torch.pth) \
		$(DESTDIR)$(LIBDIR)/pkgconfig/cgscope.pc \
		$(DESTDIR)$(MANDIR)/man1/cgscope.1 $(COMMANDS:%=$(DESTDIR)$(MANDIR)/man1/cgscope-%.1) \
		$(DESTDIR)$(DATADIR)/bash-completion/completions/cgscope \
		$(DESTDIR)$(DATADIR)/zsh/site-functions/_cgscope
	rm -rf $(DESTDIR)$(INCLUDEDIR)/cgscope $(DESTDIR)$(DATADIR)/cgscope $(DESTDIR)$(LIBDIR)/cgscope

format:
	clang-format -i lib/*.h lib/*/*.[ch] viz/*.[ch] tools/*.[ch] tests/*.c tests/bench/*.c 2>/dev/null || true

clean:
	rm -rf build build-* cgscope

-include $(shell find $(B) -name '*.d' 2>/dev/null)
