# gmm: Gaussian mixture clustering of MNIST-format images in C and CUDA.
#
#   make              build bin/gmm-train, gmm-predict, gmm-bench, gmm-augment, gmm-download-mnist
#   make test         install what the tests need, build and run every suite (GPU suites skip
#                     without a GPU), the man-page check, the C example and the Python tests
#   make test SANITIZE=1   the same under AddressSanitizer + UndefinedBehaviorSanitizer (CPU code)
#   make fuzz FUZZ_SECONDS=N   build the libFuzzer harnesses (tests/fuzz/) with clang, run each N s
#   make demo         install missing packages (apt-get), find or fetch data, train, predict
#   make deps         install the Debian packages the build and the tests need (tests/install_deps.sh)
#   make examples     regenerate the pictures of docs/images/ from MNIST_DIR
#   CUDA=0|1          force the CUDA backend off or on (default: on when nvcc is found)
#   MPI=0|1           build the programs with Open MPI for mpirun (default: on when mpicc is found)
#   CUDA_ARCH=sm_90   build CUDA code for one architecture only
#   BUILD=dir BIN=dir where objects and programs go (default build/ and bin/)
#   make install PREFIX=/usr/local [DESTDIR=]   programs, libgmm.so/.a, gmm/gmm.h, gmm.pc, man pages
#   make uninstall PREFIX=...                   removes what install put there
#   make lib          build/libgmm.so.1.0.0 (PIC objects in build/pic/), build/libgmm.a and, with
#                     CUDA, build/libgmm-cuda.so.1.0.0 (the CUDA backend, loaded at run time)
#   make python-test  the Python module's pytest suites (python/tests/) against build/libgmm.so
#   make python-wheel, make install-python PREFIX=... [DESTDIR=], make uninstall-python
#                     the Python package's wheel (build/python/), installed where python3 imports
#
# Every .c file under data/ models/ linalg/ kernels/ (subfolders too) is the CPU core: one static
# library for the programs and tests (build/libgmm-internal.a) and the installed libgmm.so and
# libgmm.a. Every .cu file there and under bench/ is the CUDA backend, one shared library
# (build/libgmm-cuda.so.1) that the core loads with dlopen when a GPU is asked for
# (kernels/cuda_loader.h), so no program links a CUDA library. Each tests/test_*.c is one Check
# suite, each app/gmm_*.c one program; bench/ holds gmm-bench and its measuring code (linked
# into the GPU test suites too).

SANITIZE ?= 0
ifeq ($(SANITIZE),1)
BUILD ?= build-sanitize
BIN ?= $(BUILD)/bin
else
BUILD ?= build
BIN ?= bin
endif

CC ?= gcc
PKG_CONFIG ?= pkg-config

# ---- probes -------------------------------------------------------------------------------
NVCC ?= $(shell command -v nvcc 2>/dev/null || (test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc))
# CUDA is built when nvcc is found, except in sanitizer builds (AddressSanitizer and the CUDA
# runtime do not mix, and the sanitizers are for our C code); CUDA=0|1 overrides either way.
ifeq ($(origin CUDA),undefined)
CUDA := $(if $(filter 1,$(SANITIZE)),0,$(if $(NVCC),1,0))
endif
ifeq ($(CUDA),1)
ifeq ($(NVCC),)
$(error CUDA=1 but nvcc was not found; install the CUDA toolkit or use CUDA=0)
endif
endif

# MPI (Open MPI's mpicc): the programs run distributed under mpirun when it is found; MPI=0|1
# overrides. The library itself never links MPI (app/cli_mpi.c gives it a gmm_comm). The fuzz
# and sanitizer builds go without (Open MPI's start-up allocations would read as leaks).
MPICC ?= $(shell command -v mpicc 2>/dev/null)
ifeq ($(origin MPI),undefined)
MPI := $(if $(filter 1,$(FUZZ) $(SANITIZE)),0,$(if $(MPICC),1,0))
endif
ifeq ($(MPI),1)
ifeq ($(MPICC),)
$(error MPI=1 but mpicc was not found; install Open MPI (apt-get install libopenmpi-dev openmpi-bin) or use MPI=0)
endif
MPI_CFLAGS := $(shell $(MPICC) --showme:compile)
MPI_LIBS := $(shell $(MPICC) --showme:link)
endif

HAVE_OPENMP := $(shell echo 'int main(void){return 0;}' | $(CC) -fopenmp -x c - -o /dev/null 2>/dev/null && echo 1 || echo 0)
HAVE_OPENBLAS := $(shell $(PKG_CONFIG) --exists openblas 2>/dev/null && echo 1 || echo 0)
HAVE_LAPACKE := $(shell (test -f /usr/include/lapacke.h || $(PKG_CONFIG) --exists lapacke 2>/dev/null) && echo 1 || echo 0)
HAVE_LIBPNG := $(shell $(PKG_CONFIG) --exists libpng 2>/dev/null && echo 1 || echo 0)
HAVE_ZLIB := $(shell $(PKG_CONFIG) --exists zlib 2>/dev/null && echo 1 || echo 0)
HAVE_CHECK := $(shell $(PKG_CONFIG) --exists check 2>/dev/null && echo 1 || echo 0)
HAVE_LIBDEFLATE := $(shell $(PKG_CONFIG) --exists libdeflate 2>/dev/null && echo 1 || echo 0)
# NCCL (the multi-GPU sums, models/dist/comm_nccl.cu): nccl.h beside CUDA's headers or in the system's
HAVE_NCCL := $(if $(filter 1,$(CUDA)),$(shell (test -f $(patsubst %/bin/nvcc,%,$(NVCC))/include/nccl.h || test -f /usr/include/nccl.h) && echo 1 || echo 0),0)

define yesno
$(if $(filter 1,$(1)),yes,no)
endef
PROBE_LINE := nvcc=$(if $(NVCC),$(NVCC),no) CUDA=$(CUDA) openmp=$(call yesno,$(HAVE_OPENMP)) openblas=$(call yesno,$(HAVE_OPENBLAS)) lapacke=$(call yesno,$(HAVE_LAPACKE)) libpng=$(call yesno,$(HAVE_LIBPNG)) zlib=$(call yesno,$(HAVE_ZLIB)) check=$(call yesno,$(HAVE_CHECK)) libdeflate=$(call yesno,$(HAVE_LIBDEFLATE)) nccl=$(call yesno,$(HAVE_NCCL)) mpi=$(call yesno,$(MPI)) sanitize=$(SANITIZE)
ifeq ($(filter-out help clean test demo deps,$(or $(MAKECMDGOALS),all)),$(or $(MAKECMDGOALS),all))
$(info gmm build: $(PROBE_LINE))
endif

# ---- flags --------------------------------------------------------------------------------
CPPFLAGS += -I. -D_GNU_SOURCE
CFLAGS ?= -O2 -g
CFLAGS += -std=c11 -Wall -Wextra -Wno-unused-parameter -Werror=implicit-function-declaration -MMD -MP
LDLIBS :=
ifeq ($(HAVE_OPENMP),1)
CFLAGS += -fopenmp
LDFLAGS += -fopenmp
endif
ifeq ($(HAVE_OPENBLAS),1)
CPPFLAGS += $(shell $(PKG_CONFIG) --cflags openblas)
BLAS_LIBS := $(shell $(PKG_CONFIG) --libs openblas)
else
BLAS_LIBS := -lblas
endif
LDLIBS += -llapacke $(BLAS_LIBS) -llapack
LDLIBS += $(shell $(PKG_CONFIG) --libs libpng 2>/dev/null || echo -lpng) $(shell $(PKG_CONFIG) --libs zlib 2>/dev/null || echo -lz)
ifeq ($(HAVE_LIBDEFLATE),1)
CPPFLAGS += $(shell $(PKG_CONFIG) --cflags libdeflate)
LDLIBS += $(shell $(PKG_CONFIG) --libs libdeflate)
endif
LDLIBS += -lm -lpthread -ldl
CHECK_LIBS := $(shell $(PKG_CONFIG) --libs check 2>/dev/null)
CHECK_CFLAGS := $(shell $(PKG_CONFIG) --cflags check 2>/dev/null)

ifeq ($(SANITIZE),1)
CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif
# FUZZ=1: the build `make fuzz` runs in build-fuzz/ with clang (libFuzzer's coverage + ASan + UBSan)
ifeq ($(FUZZ),1)
CFLAGS += -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif

CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
ifeq ($(CUDA),1)
CUDA_ARCH ?=
ifeq ($(CUDA_ARCH),)
NVCC_GENCODE := -gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_86,code=sm_86 \
  -gencode=arch=compute_89,code=sm_89 -gencode=arch=compute_90,code=sm_90 \
  -gencode=arch=compute_90,code=compute_90
else
NVCC_GENCODE := -arch=$(CUDA_ARCH)
endif
NVCCFLAGS ?= -O3 -lineinfo
NVCCFLAGS += $(NVCC_GENCODE) -std=c++17 -I. -D_GNU_SOURCE -Xcompiler -Wall,-fPIC -MMD -MP
# the core only learns that a CUDA backend exists (kernels/cuda_loader.c); the CUDA runtime and
# NCCL are linked into the backend library alone (CUDA_LDLIBS)
CPPFLAGS += -DGMM_WITH_CUDA=1
CUDA_LDLIBS := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 $(if $(filter 1,$(HAVE_NCCL)),-lnccl )-lcudart -ldl -lstdc++
# cuBLAS and cuSOLVER are not linked but loaded when the first GPU resources object is made
# (kernels/gpu_libs.cu): from the run path, else from the toolkit the build used
NVCCFLAGS += -DGMM_CUDA_LIBDIR='"$(CUDA_HOME)/lib64"' -DGMM_HAVE_NCCL=$(HAVE_NCCL)
endif

# Objects remember the configuration they were built with: when CUDA, SANITIZE or the flags
# change, everything is rebuilt (a CPU-only object must never be linked into a CUDA build).
CONFIG_STAMP := $(BUILD)/config.stamp
CONFIG_LINE := CUDA=$(CUDA) NCCL=$(HAVE_NCCL) MPI=$(MPI) LIBDEFLATE=$(HAVE_LIBDEFLATE) SANITIZE=$(SANITIZE) FUZZ=$(FUZZ) CC=$(CC) CFLAGS=$(CFLAGS) NVCC_GENCODE=$(NVCC_GENCODE)
ifeq ($(filter clean help,$(MAKECMDGOALS)),)
$(shell mkdir -p $(BUILD) && (echo '$(CONFIG_LINE)' | cmp -s - $(CONFIG_STAMP) || echo '$(CONFIG_LINE)' > $(CONFIG_STAMP)))
endif

# ---- sources ------------------------------------------------------------------------------
LIB_DIRS := kernels linalg data models
# Sources are found in subfolders too (models/backend/cuda/..., say). The CUDA entry points that
# C code calls are reached through one stand-in file per folder, <folder>/cuda_api_forward.c,
# always built: it forwards to the CUDA backend library (or says why there is none).
ALL_LIB_C := $(sort $(shell find $(LIB_DIRS) -name '*.c'))
# data/gunzip.c needs libdeflate; data/gunzip_nolibdeflate.c stands in without it.
LIB_C := $(filter-out $(if $(filter 1,$(HAVE_LIBDEFLATE)),data/gunzip_nolibdeflate.c,data/gunzip.c),$(ALL_LIB_C))
LIB_OBJ := $(LIB_C:%.c=$(BUILD)/%.o)
# the core for the programs, tests and gmm-bench (every internal name global)
CORE_LIB := $(BUILD)/libgmm-internal.a
# the installed static library (only gmm/gmm.h's names global; see "the installed library")
LIB := $(BUILD)/libgmm.a

APP_SUPPORT_C := $(filter-out app/gmm_%.c $(if $(filter 1,$(MPI)),app/cli_mpi_nompi.c,app/cli_mpi.c),$(wildcard app/*.c))
APP_SUPPORT_OBJ := $(APP_SUPPORT_C:%.c=$(BUILD)/%.o)
APP_MAIN_C := $(wildcard app/gmm_*.c)
PROGRAMS := $(patsubst app/gmm_%.c,$(BIN)/gmm-%,$(APP_MAIN_C)) $(BIN)/gmm-bench

# bench/: gmm-bench and the measuring code it shares with the GPU test suites (device buffers,
# CUDA-event timing, the ceilings), kept out of the library; bench/experiments/: the hand-written
# kernels that lost to the vendor library (numbered versions per operation), which gmm-bench and
# the GPU test suites still run.
BENCH_DIRS := bench bench/experiments
BENCH_C := $(filter-out bench/gmm_bench.c,$(sort $(wildcard $(addsuffix /*.c,$(BENCH_DIRS)))))
BENCH_OBJ := $(BENCH_C:%.c=$(BUILD)/%.o)
BENCH_LIB := $(BUILD)/libgmmbench.a

TEST_SUPPORT_C := $(filter-out tests/test_%.c,$(wildcard tests/*.c))
TEST_SUPPORT_OBJ := $(TEST_SUPPORT_C:%.c=$(BUILD)/%.o)
TEST_C := $(sort $(wildcard tests/test_*.c))
TESTS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_C))

# tests/fuzz/: one libFuzzer harness per parser (fuzz_<target>.c, LLVMFuzzerTestOneInput), its
# seed corpus in corpus/<target>/ and the crash inputs found in regressions/<target>/. `make test`
# replays both through the same harness compiled without libFuzzer (replay_main.c, gcc); `make
# fuzz` builds the harnesses with clang in build-fuzz/ and runs each FUZZ_SECONDS seconds.
# The option-parser harnesses link the program's own object with its main renamed.
FUZZ_TARGETS := idx model dataset train_args predict_args augment_args
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_BUILD ?= build-fuzz
FUZZ_COMMON_OBJ := $(BUILD)/tests/fuzz/fuzz_util.o
FUZZ_APP_OBJ_train_args := $(APP_SUPPORT_OBJ)
FUZZ_APP_OBJ_predict_args := $(BUILD)/app/gmm_predict.nomain.o $(APP_SUPPORT_OBJ)
FUZZ_APP_OBJ_augment_args := $(APP_SUPPORT_OBJ)
REPLAYS := $(FUZZ_TARGETS:%=$(BUILD)/tests/fuzz/replay_%)

.PHONY: all test run-tests deps demo clean help bench check-mnist examples check-layers fuzz \
        fuzz-replay lib install uninstall python-test example-test
all: $(PROGRAMS) $(BIN)/gmm-download-mnist

$(BUILD)/%.o: %.c $(CONFIG_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/tests/%.o: tests/%.c $(CONFIG_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CHECK_CFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/%.cu.o: %.cu $(CONFIG_STAMP)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

$(CORE_LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BENCH_LIB): $(BENCH_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BIN)/gmm-bench: $(BUILD)/bench/gmm_bench.o $(BENCH_LIB) $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(BIN)/gmm-%: $(BUILD)/app/gmm_%.o $(APP_SUPPORT_OBJ) $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) $(MPI_LIBS) -o $@

$(BUILD)/app/cli_mpi.o: CPPFLAGS += $(MPI_CFLAGS)
$(BUILD)/tests/test_mpi.o: CPPFLAGS += -DGMM_BUILT_WITH_MPI=$(MPI)

$(BIN)/gmm-download-mnist: data/download_mnist.sh Makefile
	@mkdir -p $(dir $@)
	sed 's/@GMM_VERSION@/$(SO_VERSION)/' $< > $@ && chmod +x $@

$(BUILD)/tests/test_%: $(BUILD)/tests/test_%.o $(TEST_SUPPORT_OBJ) $(BENCH_LIB) $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ $(CHECK_LIBS) $(LDLIBS) -o $@

$(BUILD)/app/%.nomain.o: app/%.c $(CONFIG_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Dmain=$*_program_main -c $< -o $@

.SECONDEXPANSION:
$(BUILD)/tests/fuzz/replay_%: $(BUILD)/tests/fuzz/fuzz_%.o $(BUILD)/tests/fuzz/replay_main.o $(FUZZ_COMMON_OBJ) $$(FUZZ_APP_OBJ_$$*) $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) $(MPI_LIBS) -o $@

$(BUILD)/fuzz/fuzz_%: $(BUILD)/tests/fuzz/fuzz_%.o $(FUZZ_COMMON_OBJ) $$(FUZZ_APP_OBJ_$$*) $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -fsanitize=fuzzer $^ $(LDLIBS) -o $@

# make test installs what the suites need first (tests/install_deps.sh test), then builds and runs
# them in a second make, whose probes (pkg-config, mpicc: made when the Makefile is read) see what
# was just installed.
test:
	@tests/install_deps.sh test
	@$(MAKE) --no-print-directory run-tests

deps:
	tests/install_deps.sh test

run-tests: $(TESTS) $(PROGRAMS) $(BIN)/gmm-download-mnist $(REPLAYS)
ifneq ($(HAVE_CHECK),1)
	$(error Check was not found: install it (make deps, or apt-get install check libsubunit-dev) to run the tests)
endif
	tests/check_layers.sh
	tests/check_man_pages.sh $(BIN)
	@GMM_BIN=$(abspath $(BIN)) tests/run_suites.sh $(TESTS)
	@$(MAKE) --no-print-directory fuzz-replay
ifeq ($(filter 1,$(SANITIZE) $(FUZZ)),)
	@$(MAKE) --no-print-directory example-test
	@$(MAKE) --no-print-directory python-test
	@$(MAKE) --no-print-directory python-install-test
else
	@echo "example-test, python-test, python-install-test: skipped under SANITIZE=1 (the sanitizer runtime cannot be loaded into python)"
endif

# Every crash regression and seed-corpus file through its harness, without libFuzzer.
fuzz-replay: $(REPLAYS)
	@for t in $(FUZZ_TARGETS); do \
	  $(BUILD)/tests/fuzz/replay_$$t tests/fuzz/regressions/$$t tests/fuzz/corpus/$$t || exit 1; \
	done

fuzz:
	$(MAKE) FUZZ=1 CC=$(FUZZ_CC) CUDA=0 SANITIZE=0 BUILD=$(FUZZ_BUILD) BIN=$(FUZZ_BUILD)/bin \
	  $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz/fuzz_%)
	FUZZ_BUILD=$(FUZZ_BUILD) tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# The layer order (app, bench -> models -> linalg -> kernels): fails on an include that runs upward.
check-layers:
	tests/check_layers.sh

# The acceptance run on the real digits (needs MNIST_DIR); takes minutes on a CPU.
check-mnist: $(PROGRAMS)
	GMM_BIN=$(abspath $(BIN)) MNIST_DIR=$(MNIST_DIR) tests/check_mnist.sh

demo: 
	@BIN=$(BIN) ./app/demo.sh

# The manual's example pictures (docs/images/), from the real digits (MNIST_DIR, or the script's
# defaults).
examples: $(PROGRAMS)
	BIN=$(BIN) app/make_examples.sh $(MNIST_DIR)

bench: $(PROGRAMS)
	$(BIN)/gmm-bench all

clean:
	rm -rf build build-sanitize build-fuzz bin

help:
	@sed -n '2,21p' Makefile

# ---- the installed library ----------------------------------------------------------------
# libgmm.so.1 -> libgmm.so.1.0.0 from position-independent copies of the core's objects
# (build/pic/), exporting only gmm/gmm.h's functions (models/api/api.map); libgmm.a from the ordinary
# objects, with the same names global (below). Neither links CUDA: both load the CUDA backend
# library, installed beside them, when a GPU is asked for. The programs link the internal core
# archive. gmm.pc's Libs.private lists what a static link needs.
SO_MAJOR := 1
SO_VERSION := 1.0.0
SHARED_LIB := $(BUILD)/libgmm.so.$(SO_VERSION)
PIC_OBJ := $(LIB_C:%.c=$(BUILD)/pic/%.o)
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
INSTALLED_PROGRAMS := gmm-train gmm-predict gmm-bench gmm-augment gmm-download-mnist
MAN_PAGES := $(INSTALLED_PROGRAMS:%=%.1)

# The programs' --version prints SO_VERSION, the one place the version is written (the man pages'
# headers are checked against it by tests/check_man_pages.sh); gmm-download-mnist gets it above.
$(BUILD)/app/cli.o $(BUILD)/bench/gmm_bench.o: CPPFLAGS += -DGMM_VERSION='"$(SO_VERSION)"'
$(BUILD)/app/cli.o $(BUILD)/bench/gmm_bench.o: Makefile

lib: $(SHARED_LIB) $(LIB)
# `make` builds the shared library too (not in sanitizer and fuzzing builds)
ifeq ($(filter 1,$(SANITIZE) $(FUZZ)),)
all: $(SHARED_LIB)
endif

$(BUILD)/pic/%.o: %.c $(CONFIG_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -c $< -o $@

$(SHARED_LIB): $(PIC_OBJ) models/api/api.map
	$(CC) -shared -Wl,-soname,libgmm.so.$(SO_MAJOR) -Wl,--version-script=models/api/api.map \
	  $(LDFLAGS) $(PIC_OBJ) $(LDLIBS) -o $@
	ln -sf libgmm.so.$(SO_VERSION) $(BUILD)/libgmm.so.$(SO_MAJOR)
	ln -sf libgmm.so.$(SO_MAJOR) $(BUILD)/libgmm.so

GMM_PC_LINES := 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(INCLUDEDIR)' '' \
  'Name: gmm' 'Description: Gaussian mixture models fitted with EM on the CPU or a CUDA GPU' \
  'Version: $(SO_VERSION)' 'Libs: -L$${libdir} -lgmm' \
  'Libs.private: $(if $(filter 1,$(HAVE_OPENMP)),-fopenmp )$(LDLIBS)' 'Cflags: -I$${includedir}'

install: $(PROGRAMS) $(BIN)/gmm-download-mnist $(SHARED_LIB) $(LIB)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/gmm \
	  $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(INSTALLED_PROGRAMS:%=$(BIN)/%) $(DESTDIR)$(BINDIR)/
	install -m 755 $(SHARED_LIB) $(DESTDIR)$(LIBDIR)/
	ln -sf libgmm.so.$(SO_VERSION) $(DESTDIR)$(LIBDIR)/libgmm.so.$(SO_MAJOR)
	ln -sf libgmm.so.$(SO_MAJOR) $(DESTDIR)$(LIBDIR)/libgmm.so
	install -m 644 $(LIB) $(DESTDIR)$(LIBDIR)/libgmm.a
	install -m 644 include/gmm/gmm.h $(DESTDIR)$(INCLUDEDIR)/gmm/gmm.h
	printf '%s\n' $(GMM_PC_LINES) > $(DESTDIR)$(PKGCONFIGDIR)/gmm.pc
	install -m 644 $(MAN_PAGES:%=man/%) $(DESTDIR)$(MANDIR)/man1/

uninstall:
	rm -f $(INSTALLED_PROGRAMS:%=$(DESTDIR)$(BINDIR)/%) $(DESTDIR)$(LIBDIR)/libgmm.so \
	  $(DESTDIR)$(LIBDIR)/libgmm.so.$(SO_MAJOR) $(DESTDIR)$(LIBDIR)/libgmm.so.$(SO_VERSION) \
	  $(DESTDIR)$(LIBDIR)/libgmm.a $(DESTDIR)$(INCLUDEDIR)/gmm/gmm.h \
	  $(DESTDIR)$(PKGCONFIGDIR)/gmm.pc $(MAN_PAGES:%=$(DESTDIR)$(MANDIR)/man1/%)
	-rmdir $(DESTDIR)$(INCLUDEDIR)/gmm 2>/dev/null

# The README's C example, built against an install into a scratch prefix through pkg-config
# (as a user would), run, and its output checked; then that install is removed again.
EXAMPLE_PREFIX := $(abspath $(BUILD))/example-prefix
example-test: $(PROGRAMS) $(BIN)/gmm-download-mnist $(SHARED_LIB) $(LIB)
	@rm -rf $(EXAMPLE_PREFIX)
	@$(MAKE) --no-print-directory -s install PREFIX=$(EXAMPLE_PREFIX) DESTDIR= >/dev/null
	@BUILD=$(BUILD) PREFIX=$(EXAMPLE_PREFIX) CC=$(CC) examples/check_example.sh
	@$(MAKE) --no-print-directory -s uninstall PREFIX=$(EXAMPLE_PREFIX) DESTDIR=
	@rm -rf $(EXAMPLE_PREFIX)

# pytest with Debian's python3 (numpy, pytest; scikit-learn for the comparisons; make test installs
# them); a note and success when numpy or pytest is missing (python-test run on its own).
PYTHON ?= /usr/bin/python3
python-test: $(SHARED_LIB)
	@if $(PYTHON) -c 'import numpy, pytest' 2>/dev/null; then \
	  PYTHONPATH=$(abspath python) GMM_LIBRARY=$(abspath $(BUILD))/libgmm.so.$(SO_MAJOR) \
	    $(PYTHON) -m pytest -q -p no:cacheprovider python/tests; \
	else echo "python-test: SKIPPED: numpy or pytest missing for $(PYTHON) (make deps installs them)"; fi

# ---- the installed static library: only gmm/gmm.h's names global ---------------------------
# libgmm.a is one relocatable object of the whole core (ld -r) in which every name but those
# models/api/api.map exports from libgmm.so is made local, so a program that links it may have its
# own la_dgemm or idx_free; the two libraries export the same names. -d gives OpenMP's named
# critical sections (common symbols) their storage, so they turn local too: the library's locks
# are its own. (Renaming ~340 internal functions to gmm_* would have touched every file for no
# gain to the reader, and left them all exported.)
API_MAP := $(firstword $(shell find models -name api.map))
API_NAMES := $(shell sed -n '/global:/,/local:/p' $(API_MAP) | tr ' ;' '\n\n' | grep '^gmm_')
LD ?= ld
OBJCOPY ?= objcopy
$(LIB): $(LIB_OBJ) $(API_MAP)
	@mkdir -p $(dir $@)
	$(LD) -r -d -o $(BUILD)/libgmm-public.o $(LIB_OBJ)
	$(OBJCOPY) --wildcard $(foreach n,$(API_NAMES),--keep-global-symbol='$(n)') $(BUILD)/libgmm-public.o
	rm -f $@ && ar rcs $@ $(BUILD)/libgmm-public.o

# ---- the CUDA backend library ----------------------------------------------------------------
# Every .cu file of kernels/ linalg/ models/ bench/ (subfolders too) is one shared library,
# libgmm-cuda.so.1 -> libgmm-cuda.so.1.0.0, that links the CUDA runtime and NCCL; the core opens
# it with dlopen when a GPU is asked for (kernels/cuda_loader.h) and reaches its functions
# through the tables it exports (<folder>/cuda_api.h). It carries its own copy of the core code
# it calls: a PIC archive of the core linked with archive semantics (only the members it needs),
# every name but the tables made local (kernels/cuda_backend.map) and bound inside it
# (-Bsymbolic); -z defs proves it self-contained. The stand-ins (*/cuda_api_forward.c) and the
# loader stay out of that archive: a stand-in pulled in would forward to itself.
CUDA_SO_MAJOR := 1
CUDA_LIB := $(BUILD)/libgmm-cuda.so.$(SO_VERSION)
CUDA_CU := $(if $(filter 1,$(CUDA)),$(sort $(shell find $(LIB_DIRS) bench -name '*.cu')))
# without nccl.h, models/backend/cuda_api.cu leaves NCCL's entries empty (GMM_HAVE_NCCL=0)
CUDA_CU := $(if $(filter 1,$(HAVE_NCCL)),$(CUDA_CU),$(filter-out %/comm_nccl.cu,$(CUDA_CU)))
CUDA_OBJ := $(CUDA_CU:%.cu=$(BUILD)/%.cu.o)
CORE_PIC_LIB := $(BUILD)/pic/libgmm-core.a
CORE_PIC_OBJ := $(filter-out %/cuda_api_forward.o %/cuda_loader.o,$(PIC_OBJ))

all: $(LIB)
ifeq ($(CUDA),1)
all lib: $(CUDA_LIB)
endif

$(CORE_PIC_LIB): $(CORE_PIC_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(CUDA_LIB): $(CUDA_OBJ) $(CORE_PIC_LIB) kernels/cuda_backend.map
	$(CC) -shared -Wl,-soname,libgmm-cuda.so.$(CUDA_SO_MAJOR) \
	  -Wl,--version-script=kernels/cuda_backend.map -Wl,-Bsymbolic -Wl,--exclude-libs,ALL \
	  -Wl,-z,defs $(LDFLAGS) $(CUDA_OBJ) $(CORE_PIC_LIB) -Wl,--as-needed $(LDLIBS) $(CUDA_LDLIBS) \
	  -o $@
	ln -sf libgmm-cuda.so.$(SO_VERSION) $(BUILD)/libgmm-cuda.so.$(CUDA_SO_MAJOR)

# Where the loader looks (compiled in): this source tree and its build folder, and the install's
# LIBDIR; and the checksum of every header the core and the backend share, so that the loader
# passes over a backend library of another build. Stamps rebuild the objects that hold them when
# any of it changes: the loader for either (`make install PREFIX=...` included), the backend's
# table object only for the checksum.
CUDA_ABI := $(shell cat $(sort $(shell find $(LIB_DIRS) bench -name '*.h')) | cksum | cut -d' ' -f1)
# (the tree's real path: the loader compares it with the running module's, symlinks resolved)
CUDA_TREE := $(realpath $(CURDIR))
CUDA_ABI_STAMP := $(BUILD)/cuda_abi.stamp
CUDA_LOADER_STAMP := $(BUILD)/cuda_loader.stamp
define write_stamp
$(shell mkdir -p $(BUILD) && (echo '$(2)' | cmp -s - $(1) || echo '$(2)' > $(1)))
endef
ifeq ($(filter clean help,$(MAKECMDGOALS)),)
$(call write_stamp,$(CUDA_ABI_STAMP),$(CUDA_ABI))
$(call write_stamp,$(CUDA_LOADER_STAMP),tree=$(CUDA_TREE) build=$(abspath $(BUILD)) libdir=$(LIBDIR))
endif
CUDA_LOADER_OBJ := $(BUILD)/kernels/cuda_loader.o $(BUILD)/pic/kernels/cuda_loader.o
$(CUDA_LOADER_OBJ): $(CUDA_ABI_STAMP) $(CUDA_LOADER_STAMP)
$(CUDA_LOADER_OBJ): CPPFLAGS += -DGMM_CUDA_ABI='"$(CUDA_ABI)"' \
  -DGMM_CUDA_BACKEND_TREE='"$(CUDA_TREE)"' -DGMM_CUDA_BACKEND_BUILD_DIR='"$(abspath $(BUILD))"' \
  -DGMM_CUDA_BACKEND_LIBDIR='"$(LIBDIR)"'
$(BUILD)/kernels/cuda_api.cu.o: $(CUDA_ABI_STAMP)
$(BUILD)/kernels/cuda_api.cu.o: NVCCFLAGS += -DGMM_CUDA_ABI='"$(CUDA_ABI)"'

# installed beside libgmm.so, where the loader of an installed program or library looks
install: install-cuda-backend
uninstall: uninstall-cuda-backend
.PHONY: install-cuda-backend uninstall-cuda-backend check-symbols
install-cuda-backend: $(if $(filter 1,$(CUDA)),$(CUDA_LIB))
ifeq ($(CUDA),1)
	install -d $(DESTDIR)$(LIBDIR)
	install -m 755 $(CUDA_LIB) $(DESTDIR)$(LIBDIR)/
	ln -sf libgmm-cuda.so.$(SO_VERSION) $(DESTDIR)$(LIBDIR)/libgmm-cuda.so.$(CUDA_SO_MAJOR)
endif
uninstall-cuda-backend:
	rm -f $(DESTDIR)$(LIBDIR)/libgmm-cuda.so.$(CUDA_SO_MAJOR) \
	  $(DESTDIR)$(LIBDIR)/libgmm-cuda.so.$(SO_VERSION)

# `make test` also checks the libraries' exported names and that no program links CUDA
# (tests/check_symbols.sh); on a GPU machine the suites load the CUDA backend library.
run-tests: check-symbols $(if $(filter 1,$(CUDA)),$(CUDA_LIB))
check-symbols: $(LIB) $(PROGRAMS) $(if $(filter 1,$(SANITIZE) $(FUZZ)),,$(SHARED_LIB)) \
               $(if $(filter 1,$(CUDA)),$(CUDA_LIB))
	BUILD=$(BUILD) BIN=$(BIN) tests/check_symbols.sh

# ---- the Python package (python/: distribution libgmm, import gmm) ---------------------------
# (after the CUDA backend's rules, whose CUDA_LIB the prerequisites name)
# python-wheel: $(BUILD)/python/libgmm-<version>-py3-none-<platform>.whl, the package with copies of
# libgmm.so.1 and, when it was built, the CUDA backend library, by python/gmm_build.py (the
# package's build backend, standard library only: no pip, no network). install-python unpacks it
# where $(PYTHON) imports from under PREFIX: Debian's $(PREFIX)/lib/python3.X/dist-packages for
# /usr/local, the user's site folder for PREFIX=$$HOME/.local, else $(PREFIX)/lib/python3.X/
# site-packages; PYTHON_SITEDIR= names the folder instead, DESTDIR= stages. `make install
# WITH_PYTHON=1` installs it too. python-install-test: tests/check_python_install.sh (pip builds
# the wheel offline, installs it into a fresh venv, gmm imported outside the tree fits a mixture).
PYTHON_WHEEL_DIR := $(BUILD)/python
PYTHON_INSTALL_ARGS = --prefix $(PREFIX) $(if $(DESTDIR),--destdir $(DESTDIR)) \
  $(if $(PYTHON_SITEDIR),--site-dir $(PYTHON_SITEDIR))
.PHONY: python-wheel install-python uninstall-python python-install-test
python-wheel: $(SHARED_LIB) $(if $(filter 1,$(CUDA)),$(CUDA_LIB))
	@rm -f $(PYTHON_WHEEL_DIR)/libgmm-*.whl
	$(PYTHON) python/gmm_build.py wheel --library $(BUILD)/libgmm.so.$(SO_MAJOR) --out $(PYTHON_WHEEL_DIR)

install-python: python-wheel
	$(PYTHON) python/gmm_build.py install $(PYTHON_WHEEL_DIR)/libgmm-*.whl $(PYTHON_INSTALL_ARGS)

uninstall-python:
	$(PYTHON) python/gmm_build.py uninstall $(PYTHON_INSTALL_ARGS)

ifeq ($(WITH_PYTHON),1)
install: install-python
uninstall: uninstall-python
endif

python-install-test: $(SHARED_LIB) $(if $(filter 1,$(CUDA)),$(CUDA_LIB))
	@BUILD=$(BUILD) PYTHON=$(PYTHON) tests/check_python_install.sh

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
