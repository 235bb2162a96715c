# servesim: the two commands that matter are `make run` and `make test`.
GO          ?= go
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
BENCHSTAT   ?= golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
BIN         := .cache/bin
VERSION     := $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS     := -X main.version=$(VERSION)
# go-nvml's cgo code calls NVML functions that NVML marks deprecated: a first build printed a hundred lines of
# warnings about the library, none about servesim (Go's default flags, plus the one that silences them).
export CGO_CFLAGS ?= -O2 -g -Wno-deprecated-declarations

.PHONY: run build test test-unit test-e2e race bench lint fuzz engine-start engine-stop clean
# The live tests time the engine on these cores: nothing may build or run beside them, even under make -j.
.NOTPARALLEL:

## run: simulate the embedded default (a real public trace, four policies)
run: build
	$(BIN)/servesim simulate

## build: the servesim binary in .cache/bin
build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/servesim ./cmd/servesim

## test: lint, unit tests, then end-to-end tests against a real engine (Ollama, built and started here)
test: lint test-unit test-e2e

## test-unit: every test but the live ones (their names hold E2E), which test-e2e runs with the engine up;
## under CI=true a live test without its engine fails rather than skips
test-unit:
	$(GO) test -count=1 -skip E2E ./...

## test-e2e: starts the CPU engine with a generated model, runs the live tests, stops it
## (-p 1: no other package builds or runs beside the live tests, which time the engine on the same cores;
## SERVESIM_ENGINE_CPUS and SERVESIM_CLIENT_CPUS, taskset CPU lists, pin the engine and the tests apart;
## the traps stop the engine, in its own session, also when the run is interrupted: sh runs no EXIT trap on a signal)
test-e2e: build
	scripts/engine.sh install
	scripts/engine.sh start > .cache/engine.env
	trap 'scripts/engine.sh stop' EXIT; trap 'exit 129' HUP; trap 'exit 130' INT; trap 'exit 143' TERM; \
	  set -a; . ./.cache/engine.env; set +a; \
	  $(if $(SERVESIM_CLIENT_CPUS),taskset -c $(SERVESIM_CLIENT_CPUS)) $(GO) test -p 1 -count=1 -timeout 60m -run 'E2E' -v ./...

## engine-start, engine-stop: the CPU test engine alone, for running E2E tests by hand
## (`set -a; . ./.cache/engine.env; set +a; go test -run E2E ./cmd/servesim`)
engine-start:
	@mkdir -p .cache
	scripts/engine.sh start > .cache/engine.env

engine-stop:
	scripts/engine.sh stop

## race: the unit tests under the race detector (about 25 min on 2 cores: too slow for every `make test`)
race:
	$(GO) test -race -count=1 -skip E2E ./...

## bench: every benchmark 6 times, then benchstat (make's sh has no pipefail: a failed run reaches make through a file)
bench:
	@mkdir -p .cache && rm -f .cache/bench.failed
	{ $(GO) test -run '^$$' -bench . -benchmem -count 6 ./... || touch .cache/bench.failed; } | tee .cache/bench.txt
	@if [ -e .cache/bench.failed ]; then rm -f .cache/bench.failed; echo "benchmarks failed"; exit 1; fi
	$(GO) run $(BENCHSTAT) .cache/bench.txt

## lint: gofmt on the files git tracks (without a file list gofmt would read stdin and pass), vet, staticcheck
lint:
	@files=$$(git ls-files '*.go') && [ -n "$$files" ] || { echo "lint: git ls-files listed no Go file (lint needs a git checkout)"; exit 1; }; \
	  unformatted=$$(gofmt -l $$files) || { echo "gofmt failed"; exit 1; }; \
	  test -z "$$unformatted" || { echo "$$unformatted"; echo "gofmt needed"; exit 1; }
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

## fuzz: a short run of every fuzz target (seed corpora live in testdata/; `make test-unit` replays them)
## Go 1.26's fuzz coordinator can fail a target with "context deadline exceeded" as -fuzztime ends on a
## busy machine (go.dev/issue/75804, fixed in 1.27), so fuzzing runs on 1.27, which the go command fetches.
FUZZ_GO     ?= GOTOOLCHAIN=go1.27.3 $(GO)
FUZZTIME    ?= 20s
fuzz:
	@pkgs=$$($(GO) list ./...) || exit 1; \
	for pkg in $$pkgs; do \
	  list=$$($(GO) test -list '^Fuzz' $$pkg) || { echo "$$list"; exit 1; }; \
	  for f in $$(echo "$$list" | grep '^Fuzz'); do \
	    $(FUZZ_GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

clean:
	rm -rf .cache
