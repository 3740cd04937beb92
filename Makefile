# Set-up and checks. `make demo` and `make test` create .venv when it is missing.
PYTHON ?= python3
TORCH_INDEX ?=
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test test-integration install bench fuzz stress clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# PyTorch first, so that nothing pulls another build: the CPU one where the configured index
	# serves it; TORCH_INDEX=<the CPU wheel index PyTorch's install page gives> takes it from there.
	$(PY) -m pip install --quiet torch==2.13.0 $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	$(PY) -m pip install --quiet -e ".[all,test]"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/jar-retrieval retrieve -k 3 --explain

test: $(STAMP)
	$(PY) -m pytest -q

# Tests against a real PostgreSQL server that the test run starts (127.0.0.1, a temporary
# directory) and stops: needs Debian's postgresql server binaries (initdb, pg_ctl), which this
# target does not install (apt-get install postgresql); without them the tests are skipped. The
# pgvector tests start the PostgreSQL 16 with pgvector of the pgserver package (the test extra).
test-integration: $(STAMP)
	$(PY) -m pytest -q -rs -m integration

bench: $(STAMP)
	$(VENV)/bin/jar-retrieval bench

# More fuzzing than `make test` does, and two processes saving/loading one index (docs/results.md).
fuzz: $(STAMP)
	$(PY) scripts/fuzz.py --examples 2000

stress: $(STAMP)
	$(PY) scripts/stress_index.py --seconds 60

clean:
	rm -rf $(VENV) build *.egg-info
