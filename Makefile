# cwnd: two commands set everything up on a fresh machine (Python 3.11, Rust, make).
#   make run   — build, then reproduce every study (results/index.html) and run the
#                example scenarios (results/scenarios/)
#   make test  — build, then every Rust and Python test

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: all venv build run test lint golden bench clean

all: test

$(STAMP): requirements.lock
	@echo "== cwnd: creating $(VENV) and installing the pinned Python packages (first time: ~1 min)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements.lock
	touch $(STAMP)

venv: $(STAMP)

build: venv
	@echo "== cwnd: building the simulator and its Python extension (release; first time: ~2 min)"
	PIP_QUIET=1 PIP_DISABLE_PIP_VERSION_CHECK=1 $(BIN)/maturin develop --release
	@echo "== cwnd: built; the command is $(BIN)/cwnd (or 'source $(BIN)/activate', then cwnd)"

# The scenarios first, so that the studies' report (results/index.html) links their page.
run: build
	$(BIN)/cwnd run-all scenarios --out results/scenarios
	$(BIN)/cwnd reproduce all --out results

test: build
	@echo "== cwnd: Rust tests (profile fasttest: optimised, no LTO)"
	cargo test --workspace --profile fasttest
	@echo "== cwnd: Python tests (four workers; a module's tests stay together)"
	$(BIN)/python -m pytest -q -n 4 --dist loadgroup

# Rewrites the golden files after a deliberate behaviour change (say why in the commit).
golden:
	CWND_UPDATE_GOLDEN=1 cargo test --profile fasttest -p cwnd-sim --test golden

lint: venv
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings
	$(BIN)/ruff check python tests tools examples
	$(BIN)/ruff format --check python tests tools examples
	$(BIN)/mypy

bench: build
	cargo bench -p cwnd-sim --bench engine
	cargo bench -p cwnd-sim --bench dumbbell
	$(BIN)/cwnd bench

clean:
	rm -rf $(VENV) target results
