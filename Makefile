# Two commands do all the set-up: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cksum requirements.txt | cut -d' ' -f1)
# uv installs the same pinned requirements.txt about ten times faster than pip; pip stays the
# fallback when uv cannot be had. INSTALLER=pip forces the old path (bench/setup_time.py compares them).
INSTALLER ?= uv
UV_VERSION := 0.13.8
PORT ?= 8501

.PHONY: run test screenshots bench bench-setup bench-peers loadtest venv clean

venv: $(STAMP)

# After the install, the app's imports are compiled once: uv writes no bytecode, so the server's first visitor would
# compile pandas, plotly and streamlit, and again on every start where PYTHONDONTWRITEBYTECODE is set (container
# images often set it): 3 to 4 s of a first page on 2 cores.
$(STAMP): requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	if [ "$(INSTALLER)" = uv ] && $(PY) -m pip install --quiet --disable-pip-version-check uv==$(UV_VERSION) \
	    && $(VENV)/bin/uv pip install --quiet --python $(PY) -r requirements.txt; then :; \
	else $(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt; fi
	PYTHONDONTWRITEBYTECODE= $(PY) -c "import importlib, pkgutil, lib.ui; \
	    [importlib.import_module('lib.ui.' + m.name) for m in pkgutil.iter_modules(lib.ui.__path__)]"
	rm -f $(VENV)/.installed-*
	touch $@

run: $(STAMP)
	$(PY) -m streamlit run app.py --server.address 127.0.0.1 --server.port $(PORT)

test: $(STAMP)
	$(PY) -m pytest -q

# The browser tests, allowed to replace the README's screenshots in docs/screenshots when they changed.
screenshots: $(STAMP)
	ROUNDTRIP_WRITE_SCREENSHOTS=1 $(PY) -m pytest -q tests/browser

bench: $(STAMP)
	$(PY) -m bench.count_tokens
	$(PY) -m bench.estimate_accuracy
	$(PY) -m bench.import_log
	$(PY) -m bench.import_otlp
	$(PY) -m bench.import_cassette
	$(PY) -m bench.shared_opening
	$(PY) -m bench.explorer
	$(PY) -m bench.compare
	$(PY) -m bench.library
	$(PY) -m bench.tokens_page
	$(PY) -m bench.pages
	$(PY) -m bench.upload_bombs
	$(PY) -m bench.live_overhead
	$(PY) -m bench.proxy

# Time from a fresh clone to the first page, uv against pip, both from a clean cache (needs the registries).
bench-setup:
	$(PYTHON) -m bench.setup_time

# Roundtrip against Inspect AI's viewer on the same 1,000-round trace; Inspect gets a venv of its own, pinned apart.
PEERS_VENV := .venv-peers
PEERS_STAMP := $(PEERS_VENV)/.installed-$(shell cksum bench/peers/requirements.txt | cut -d' ' -f1)

$(PEERS_STAMP): bench/peers/requirements.txt
	test -x $(PEERS_VENV)/bin/python || $(PYTHON) -m venv $(PEERS_VENV)
	if [ "$(INSTALLER)" = uv ] && $(PEERS_VENV)/bin/python -m pip install --quiet --disable-pip-version-check uv==$(UV_VERSION) \
	    && $(PEERS_VENV)/bin/uv pip install --quiet --python $(PEERS_VENV)/bin/python -r bench/peers/requirements.txt; then :; \
	else $(PEERS_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r bench/peers/requirements.txt; fi
	rm -f $(PEERS_VENV)/.installed-*
	touch $@

bench-peers: $(STAMP) $(PEERS_STAMP)
	$(PY) -m bench.peers

loadtest: $(STAMP)
	$(PY) -m bench.load_test --sessions 30

clean:
	rm -rf $(VENV) $(PEERS_VENV) .pytest_cache
