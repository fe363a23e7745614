# The README's two commands, `make demo` and `make test`, work from a fresh clone.
SWIFT ?= swift
# Warnings are errors in every build the tests run on, so a warning can never land.
STRICT = -Xswiftc -warnings-as-errors

.PHONY: demo test bench deps test-deps

deps:
	@./scripts/install-deps.sh

test-deps:
	@./scripts/install-deps.sh test

demo: deps
	$(SWIFT) build
	$(SWIFT) run douyinkit demo

test: test-deps
	$(SWIFT) build --build-tests $(STRICT)
	$(SWIFT) test $(STRICT)
	$(SWIFT) test --sanitize=thread $(STRICT)

bench: test-deps
	$(SWIFT) run -c release douyinkit-bench
