# The two commands of the README: `make run` and `make test`. Everything else is a helper.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: mutation grounding-eval run test test-install venv lint kafka-up kafka-down bench bench-cluster clean

venv: $(STAMP)

# setuptools prints a notice for every editable install of a package whose folder is mapped (schemas_avro/ ->
# streams.wire.schemas): that one notice is silenced, every other warning shows
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	PYTHONWARNINGS="ignore:Editable installation" $(BIN)/pip install -q -e '.[dev]'
	touch $@

# The bundled examples contain rejected packets and dead letters on purpose, so exit 1 ("something
# was rejected") is a successful run here; 2 and above are real failures. Then the memories are projected
# from the replay's outputs into out/memories.sqlite and one session's Session Memory is shown.
run: venv
	@rc=0; $(BIN)/omega replay examples/omen/*.jsonl examples/omega57/*.yaml --out out/replay.jsonl || rc=$$?; \
	  echo "outputs: out/replay.jsonl"; [ $$rc -le 1 ]
	$(BIN)/omega project --from out/replay.jsonl --rebuild --store sqlite:out/memories.sqlite
	$(BIN)/omega memory show clean_success --kind session --store sqlite:out/memories.sqlite
	@echo "look again: $(BIN)/omega memory show SESSION_ID --kind session|pattern|failure|success --store sqlite:out/memories.sqlite"
	@echo "look live: $(BIN)/omega memory serve --store sqlite:out/memories.sqlite  then open http://127.0.0.1:8080/  (or: $(BIN)/omega watch --store sqlite:out/memories.sqlite)"

# Builds the wheel, installs it in a fresh venv and runs omega from outside the checkout (may need PyPI)
test-install: venv
	OMEGA_TEST_INSTALL=1 $(BIN)/python -m pytest -q tests/unit/test_packaging.py

lint: venv
	$(BIN)/ruff check omega streams projections tests
	$(BIN)/mypy
	$(BIN)/mkdocs build --strict --quiet

test: venv
	bash scripts/run-tests.sh

kafka-up:
	bash deploy/kafka/kafka.sh up

kafka-down:
	bash deploy/kafka/kafka.sh down

# Every figure of BENCHMARKS.md (`python -m tests.bench`: starts its own broker; rewrites the file's generated
# section). Smoke run: make bench BENCH_ARGS="--quick --no-write"
bench: venv
	$(BIN)/python -m tests.bench $(BENCH_ARGS)

# Two workers on a 3-broker cluster (RF 3, min ISR 2) beside a single broker, alternated (issue 23; ~10 min)
bench-cluster: venv
	$(BIN)/python -m tests.bench.bench_cluster $(BENCH_ARGS)

# Grounding on claims nobody here wrote (issue 19): false support and support recall on FEVER-Symmetric dev, and the
# per-sentence latency over the same pairs.
FEVER_DEV ?= tests/data/fever_symmetric/dev.grounding.json
# Mutation score by module (issue 20; hours for all of omega/ on 2 cores): make mutation MODULES="omega.oracle"
mutation: venv
	MODULES="$(MODULES)" bash scripts/mutation.sh

# Issue 42: in-sample (tests/data/grounding, tests/data/grounding_manuscript), blind halves written from the contract
# alone (tests/data/grounding_blind, tests/data/grounding_blind_2 .. tests/data/grounding_blind_8) and FEVER-Symmetric
# dev, one line each.
grounding-eval: venv
	$(BIN)/python -m tests.bench.bench_grounding --data $(FEVER_DEV) --repeat 20
	for set in grounding grounding_manuscript grounding_blind grounding_blind_2 grounding_blind_3 grounding_blind_4 \
		grounding_blind_5 grounding_blind_6 grounding_blind_7 grounding_blind_8; do \
		$(BIN)/python -m tests.bench.bench_grounding --data tests/data/$$set --repeat 20 || exit 1; done

clean:
	rm -rf $(VENV) out .omega-data .pytest_cache .mypy_cache .ruff_cache
