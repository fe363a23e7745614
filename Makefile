# The README's two commands, `make demo` and `make test`, work from a fresh clone.
SWIFT ?= swift
# Warnings are errors in every build the tests run on, so a warning can never land.
STRICT = -Xswiftc -warnings-as-errors

.PHONY: demo test bench docs fuzz fuzz-smoke deps test-deps

deps:
	@./scripts/install-deps.sh

test-deps:
	@./scripts/install-deps.sh test

demo: deps
	$(SWIFT) build
	$(SWIFT) run douyinkit demo

# A crash of the test process prints only the crashed thread, without registers or the image
# list, to stderr: the end of a CI log then shows where it crashed.
CRASH_REPORT = SWIFT_BACKTRACE=enable=yes,interactive=no,threads=crashed,registers=none,images=none,output-to=stderr
# Each test pass takes 5-7 minutes; one still running after 30 is hung, and is stopped so the run
# ends with its output instead of at CI's limit. Only off a terminal (CI, a log): `timeout` puts
# the pass in a process group of its own, which a Ctrl-C at a terminal would no longer reach; and
# only where `timeout` exists (coreutils; not macOS's own tools).
PASS_LIMIT = $(shell [ -t 2 ] || { command -v timeout >/dev/null 2>&1 && echo "timeout -k 30 1800"; })

# At most 24 tests at once (Swift Testing's experimental width; ignored where unknown). With
# every test at once the test process held up to 1,322 descriptors, ~140 servers alive, near
# the ~1,360 past which corelibs 6.3's Process.run() reads beyond its /proc/self/fd buffer; with
# 24 it held at most 645, and the plain pass took 320 s either way.
TEST_WIDTH = SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=24

# Tests that take the whole test process over run after each pass, alone in a process of their
# own: PoolStarvationTests keeps every thread of the global dispatch pool spinning, and on Linux
# that pool runs every Swift task too, so in a whole-suite pass each other test stood still.
ALONE = DOUYIN_ALONE_TESTS=1 $(PASS_LIMIT) $(SWIFT) test --skip-build --filter PoolStarvationTests

# The fuzz smoke: every fuzz target over its kept corpus, then mutating it for 2 seconds, so a
# parser's regression fails the gate (Linux only: it needs -sanitize=fuzzer). Built without
# optimisation into a directory of its own: half the compile time, and speed does not matter.
FUZZ_SMOKE = [ "$$(uname)" != Linux ] || { export FUZZ_OUT=.build/fuzz-smoke FUZZ_OPT=-Onone; ./Fuzz/build.sh && ./Fuzz/run.sh smoke 2; }

fuzz-smoke:
	$(FUZZ_SMOKE)

test: test-deps
	$(SWIFT) build --build-tests $(STRICT)
	$(CRASH_REPORT) $(TEST_WIDTH) $(PASS_LIMIT) $(SWIFT) test $(STRICT)
	$(CRASH_REPORT) $(ALONE)
	$(CRASH_REPORT) $(TEST_WIDTH) $(PASS_LIMIT) $(SWIFT) test --sanitize=thread $(STRICT)
	$(CRASH_REPORT) $(ALONE) --sanitize=thread
	SWIFT=$(SWIFT) ./scripts/docs.sh
	$(FUZZ_SMOKE)

# A DocC archive per library module in .build/docs/<Module>.doccarchive and all of them combined
# in .build/docs/DouyinKit.doccarchive (`docc merge`; README, "Reading the docs"). Fails when a
# public symbol has no doc comment, when docc warns (broken or ambiguous link, undocumented
# parameter) or when a README sample does not compile (`make test` runs it too).
docs: deps
	SWIFT=$(SWIFT) ./scripts/docs.sh

bench: test-deps
	$(SWIFT) run -c release douyinkit-bench

# libFuzzer (Linux toolchains; Xcode's swiftc has no -sanitize=fuzzer) over every parser of
# outside bytes: Fuzz/build.sh compiles the package's modules once, as static libraries
# instrumented for libFuzzer and AddressSanitizer, and links one small binary per
# Fuzz/Targets/<target>.swift against them; each then runs FUZZ_SECONDS from its kept corpus
# (Fuzz/Corpus/<target>) and the fixtures' seeds. CONTRIBUTING.md ("Fuzzing") says how to add
# a target, replay a crash and keep the corpus small.
FUZZ_SECONDS ?= 60
fuzz: deps
	./Fuzz/build.sh
	for target in $$(ls Fuzz/Targets | sed 's/\.swift$$//'); do ./Fuzz/run.sh fuzz $$target $(FUZZ_SECONDS) || exit 1; done
