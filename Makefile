# cwnd: two commands set everything up on a fresh machine (Python 3.11, Rust, make).
#   make run   — build, then reproduce every study (results/index.html) and run the
#                example scenarios (results/scenarios/)
#   make test  — build, then every Rust and Python test

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: all venv build run test lint bench clean

all: test

$(STAMP): requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet -r requirements.lock
	touch $(STAMP)

venv: $(STAMP)

build: venv
	$(BIN)/maturin develop --release --quiet

run: build
	$(BIN)/cwnd reproduce all --out results
	$(BIN)/cwnd run-all scenarios --out results/scenarios

test: build
	cargo test --workspace --release
	$(BIN)/python -m pytest -q

lint: venv
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings
	$(BIN)/ruff check python tests tools
	$(BIN)/ruff format --check python tests tools

bench: build
	cargo bench -p cwnd-sim --bench engine
	cargo bench -p cwnd-sim --bench dumbbell
	$(BIN)/cwnd bench

clean:
	rm -rf $(VENV) target results
