GO      ?= go
BIN     := bin/medteam
PKGS    := ./...

.PHONY: build run test bench memcheck e2e duckdb lint fmt golden fuzz calibrate clean

# build stamps the version and revision for 'medteam version' via -ldflags;
# Go's own VCS stamping (from .git) wins when present.
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo unknown)
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD 2>/dev/null || echo +dirty)
LDFLAGS  := -X github.com/medteam-bench/medteam/cli.stampVersion=$(VERSION) -X github.com/medteam-bench/medteam/cli.stampRevision=$(REVISION)

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/medteam

## run: the main job on the embedded default (50 MedQA questions, full preset, simulated model), gated by the thresholds written for it
run: build
	./$(BIN) run --check configs/thresholds-sample.yaml

## test: the whole suite with the race detector (an explicit -timeout with headroom: cli takes minutes on a loaded 2-core machine, go test's default is 10m)
TEST_TIMEOUT ?= 40m
## It closes with "N passed, N failed, N skipped" and lists each skipped test with its reason
## (scripts/testsum over go test -json); a go test that exits non-zero without a failing test
## event still fails the target (its exit line is not JSON, and testsum counts that).
test:
	$(GO) build -o bin/testsum ./scripts/testsum
	{ $(GO) test -json -race -count=1 -timeout $(TEST_TIMEOUT) $(PKGS) || echo "make test: go test -race $(PKGS) exited $$?"; \
	  $(GO) test -json -count=1 -run '^TestRealOutputs(Blind)?$$' ./answer/ || echo "make test: go test ./answer/ exited $$?"; } | bin/testsum

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

## calibrate: the baseline gate's CI-red rate on unchanged candidates and its detection, interval coverage, and the seed-to-seed discordance, on real sim runs (build tag calibrate; MedMCQA and MedQA under MEDTEAM_DATA; 400 pairs per cell, MEDTEAM_CAL_PAIRS=20 for a quick look; docs/ci.md has the table)
calibrate:
	$(GO) test -tags calibrate -count=1 -timeout 60m -run 'TestCalibrate' -v ./check/

## memcheck: peak RSS of a 20,000-question base run on the simulator (limit 300 MB)
memcheck:
	bash scripts/memcheck.sh

## e2e: the real-Ollama end-to-end test (builds a pinned Ollama on first use)
e2e:
	bash scripts/e2e-ollama.sh

## duckdb: run the DuckDB query under report.md's headline table and compare it with the table (DuckDB from npm)
duckdb:
	bash scripts/duckdb-check.sh

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt: files above need formatting"; exit 1; }
	$(GO) vet $(PKGS)
	$(GO) run ./scripts/shape .
	$(GO) run ./scripts/doclinks .

fmt:
	gofmt -w $$(git ls-files '*.go')

## golden: regenerate golden files after an intended behaviour change (review the diff!)
golden:
	$(GO) test ./runner -run Golden -update
	$(GO) test ./report -run Golden -update
	$(GO) test ./cli -run ReportGolden -update
	$(GO) test ./slurm -run Golden -update

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzParseAnswer -fuzztime 30s ./answer/
	$(GO) test -run '^$$' -fuzz FuzzOptionParsers -fuzztime 15s ./teamwork/
	$(GO) test -run '^$$' -fuzz FuzzReadMedQA -fuzztime 30s ./datasets/
	$(GO) test -run '^$$' -fuzz FuzzLoadParquet -fuzztime 30s -fuzzminimizetime 2s ./datasets/
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime 15s ./protocols/firstanswer/
	$(GO) test -run '^$$' -fuzz FuzzParseBallot -fuzztime 15s ./protocols/veto/
	$(GO) test -run '^$$' -fuzz FuzzParseSpecialties -fuzztime 15s ./protocols/vote/
	$(GO) test -run '^$$' -fuzz FuzzParseReview -fuzztime 15s ./protocols/council/
	$(GO) test -run '^$$' -fuzz FuzzParseChairman -fuzztime 15s ./protocols/council/
	$(GO) test -run '^$$' -fuzz FuzzParseVerdict -fuzztime 15s ./protocols/judge/
	$(GO) test -run '^$$' -fuzz FuzzParseDomains -fuzztime 15s ./protocols/medagents/
	$(GO) test -run '^$$' -fuzz FuzzParseVote -fuzztime 15s ./protocols/medagents/
	$(GO) test -run '^$$' -fuzz FuzzParseReport -fuzztime 15s ./protocols/medagents/
	$(GO) test -run '^$$' -fuzz FuzzParseReplies -fuzztime 15s ./protocols/mdagents/
	$(GO) test -run '^$$' -fuzz FuzzParseOutputLine -fuzztime 15s ./llm/openai/
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime 15s ./scripts/doclinks/
	$(GO) test -run '^$$' -fuzz FuzzEscape -fuzztime 10s ./escape/
	$(GO) test -run '^$$' -fuzz FuzzParseTriageLine -fuzztime 15s ./cli/
	$(GO) test -run '^$$' -fuzz FuzzLoadSemigran -fuzztime 15s ./datasets/
	$(GO) test -run '^$$' -fuzz FuzzLoadTriage -fuzztime 15s ./datasets/
	$(GO) test -run '^$$' -fuzz FuzzParseScale -fuzztime 15s ./datasets/
	$(GO) test -run '^$$' -fuzz FuzzLoadHeadQA -fuzztime 15s ./datasets/
	$(GO) test -run '^$$' -fuzz FuzzRead -fuzztime 15s ./rescore/
	$(GO) test -run '^$$' -fuzz FuzzTriageParse -fuzztime 15s ./answer/
	$(GO) test -run '^$$' -fuzz FuzzDiagnosisMatch -fuzztime 15s ./tasks/triage/
	$(GO) test -run '^$$' -fuzz FuzzReadVerdict -fuzztime 15s ./tasks/triage/
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime 15s ./triage/redflag/
	$(GO) test -run '^$$' -fuzz FuzzParseScontrol -fuzztime 15s ./slurm/

clean:
	rm -rf bin
