# Set-up and checks. `make demo` and `make test` create .venv when it is missing.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test install bench clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# CPU build of PyTorch first, so that nothing pulls the CUDA wheels.
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e ".[all,test]"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/jar-retrieval retrieve -k 3 --explain

test: $(STAMP)
	$(PY) -m pytest -q

bench: $(STAMP)
	$(VENV)/bin/jar-retrieval bench

clean:
	rm -rf $(VENV) build *.egg-info
