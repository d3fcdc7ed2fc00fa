# tdprof: the two setup commands are `make demo` and `make check` (README.md).
# Meson + Ninja do the work in build/; this file installs what is missing and
# wraps the common tasks.
#
#   make              build build/tdprof
#   make check        build and run every test (unit, e2e, headers, lint, fuzz replay)
#   make demo         build tdprof and the branch demo only, and run the main job on it
#   make install      install binary, headers, pkg-config file, man pages (PREFIX=/usr/local)
#   make bench        run the benchmarks against perf and valgrind (bench/RESULTS.md)
#   make check-asan   the test suite built with AddressSanitizer + UBSan (build-asan/)
#   make fuzz         run each libFuzzer target for FUZZ_SECONDS (clang)
#   make check-valgrind  the unit tests under valgrind memcheck (leaks fail)
#   make check-arm64  boot an arm64 guest with a real PMU driver under qemu and test there
#   make clean

BUILD ?= build
PREFIX ?= /usr/local
MESON_OPTS ?=
FUZZ_SECONDS ?= 60
NINJA ?= ninja

.PHONY: all deps check demo install bench check-asan fuzz check-valgrind check-arm64 clean

all: $(BUILD)/build.ninja
	$(NINJA) -C $(BUILD)

deps:
	@scripts/deps.sh build

$(BUILD)/build.ninja:
	@scripts/deps.sh build
	meson setup $(BUILD) --prefix=$(PREFIX) $(MESON_OPTS)

check: all
	@scripts/deps.sh test
	-meson test -C $(BUILD) --print-errorlogs --num-processes 2 $(TESTS)
	@scripts/test-summary.py $(BUILD)

# Only what the demo runs: tdprof, the branch demo and tdprof's valgrind tool
# (`sim-tool`: the tool where Meson configured it, else tdprof again; valgrind's
# static libraries come with deps.sh's valgrind), not the tests, fuzzers and
# benchmarks, so that a new user sees the first result in about a minute.
DEMO_TARGETS = tdprof examples/branch/demo-branch sim-tool
demo:
	@scripts/deps.sh demo
	@$(MAKE) --no-print-directory $(BUILD)/build.ninja
	$(NINJA) -C $(BUILD) $(DEMO_TARGETS)
	@scripts/demo.sh $(BUILD)

# The prefix is the one given now (PREFIX=, default /usr/local), not the one the
# build directory was first set up with by an earlier make or make demo.
install: all
	meson configure $(BUILD) --prefix=$(PREFIX)
	meson install -C $(BUILD)

bench: all
	@scripts/deps.sh test
	bench/run.sh $(BUILD)

build-asan/build.ninja:
	@scripts/deps.sh build
	CC=$${CC:-gcc} meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false \
	  -Dc_args=-fno-sanitize-recover=undefined $(MESON_OPTS)

check-asan: build-asan/build.ninja
	@scripts/deps.sh test
	$(NINJA) -C build-asan
	-meson test -C build-asan --print-errorlogs --num-processes 2 $(TESTS)
	@scripts/test-summary.py build-asan

fuzz:
	@scripts/deps.sh fuzz
	scripts/fuzz.sh $(FUZZ_SECONDS)

# Every unit test and corpus replay (with its allocation failures) under memcheck:
# an invalid access or a definite or indirect leak makes the program exit 99, a
# failed test; test-summary.py then fails the target.
VALGRIND = valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect \
	--errors-for-leak-kinds=definite,indirect
check-valgrind: all
	@scripts/deps.sh test
	-meson test -C $(BUILD) --suite unit --suite fuzz-replay --num-processes 2 --timeout-multiplier 20 \
	  --wrapper '$(VALGRIND)' --print-errorlogs $(TESTS)
	@scripts/test-summary.py --log testlog-valgrind $(BUILD)

# Cross-builds tdprof for aarch64, boots Debian's arm64 kernel under qemu (QEMU's
# emulated PMUv3, the kernel's armv8_pmuv3 driver) and checks tdprof there; the
# guest's console is kept in build-arm64/guest.log (docs/arm64-guest.md).
check-arm64: all
	@scripts/deps.sh arm64
	tests/arm64/run.sh $(BUILD)

clean:
	rm -rf $(BUILD) build-asan build-fuzz
