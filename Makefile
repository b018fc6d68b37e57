# Two commands do everything: `make book` and `make test`.
# Both create .venv/ and install the pinned environment the first time; on a fresh Debian machine
# (as root) they also apt-get what is missing outside Python: npm to vendor the site's JavaScript,
# Chromium for the browser tests.
PYTHON   ?= python3
VENV     := .venv
BIN      := $(VENV)/bin
STAMP    := $(VENV)/.installed
CHROMIUM := /usr/bin/chromium
# Executed notebooks (book build, nbval) and CI logs get no progress bars.
export COURSE_RNN_PROGRESS ?= 0

.PHONY: book test notebooks notebooks-elsewhere lint install web-assets npm chromium bubblewrap clean exercises grade replicate dist

install: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $@

# $(call apt_install,TEST,PACKAGE): when the shell TEST fails, apt-get install PACKAGE (as root);
# where that is impossible, only say what is missing.
apt_install = if ! $(1); then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(2); \
	  else echo "make: '$(1)' failed and the Debian package $(2) cannot be installed here"; fi; \
	fi

npm:
	@$(call apt_install,command -v npm >/dev/null,npm)

chromium:
	@$(call apt_install,test -x $(CHROMIUM),chromium)

# The grader runs every submission in a bubblewrap sandbox (exercises/README.md).
bubblewrap:
	@$(call apt_install,command -v bwrap >/dev/null,bubblewrap)

# MathJax, RequireJS and the ipywidgets manager, so that the site needs no network when read:
# fetched once with `npm pack` (cached in book/_web_assets/npm/), unpacked for html_extra_path.
web-assets: $(STAMP) npm
	$(BIN)/python scripts/vendor_web_assets.py

# -W: a failing or timed-out notebook cell fails the build. Execution is cached per notebook.
book: $(STAMP) web-assets
	rm -rf book/_build/html  # no stale pages of removed files (executed notebooks stay cached)
	$(BIN)/jupyter-book build -W -n --keep-going book/
	@echo "Open book/_build/html/index.html"

# The site tests (tests/book/) check the built site, so the book is built (or updated) first.
# The tests run in two processes (pytest-xdist; a file's tests stay together), except the
# grader's (tests/exercises/), which run alone: their time limits and their check of what a
# submission left behind (processes, /dev/shm) must not see other tests' work. Then the chapters
# run a second time as another machine would: see notebooks-elsewhere.
test: book chromium bubblewrap
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/python -m pytest -n 2 --dist loadfile --ignore=tests/exercises --durations=25
	$(BIN)/python -m pytest tests/exercises --durations=10
	$(MAKE) notebooks-elsewhere

# Every chapter notebook through nbval (make test already executes each once, in the book build).
# On a GPU machine: COURSE_RNN_DEVICE=cuda make notebooks; the papers' sizes: COURSE_RNN_SCALE=paper.
notebooks: $(STAMP)
	$(BIN)/python -m pytest chapters

# The chapters through nbval as on another machine with other seeds: PyTorch's portable kernels
# (another rounding than this CPU's own) and every seed shifted by an offset taken from the commit
# (scripts/ci_offset.py, printed first), so no claim can be fitted to one offset. A claim that
# holds only on this CPU, or only for the seeds the book is built with, fails here
# (benchmarks/robustness.py measures every chapter under more such variants). SEED_OFFSET=n
# repeats the run at offset n (the one a CI log printed). One notebook at a time: two at once,
# each training in one process, took as long (1,010 s against the book build's ≈ 1,000 s,
# session 14) — the chapters' own worker processes already use both cores.
notebooks-elsewhere: $(STAMP)
	@offset=$$($(BIN)/python scripts/ci_offset.py $(SEED_OFFSET)) && \
	  echo "notebooks-elsewhere: seed offset $$offset, portable kernels (repeat: make notebooks-elsewhere SEED_OFFSET=$$offset)" && \
	  ATEN_CPU_CAPABILITY=default COURSE_RNN_SEED_OFFSET=$$offset $(BIN)/python -m pytest chapters

# Regenerate the student notebooks and autograder bundles from exercises/source/. The grader
# finds exercises/ from the folder make runs in (this repository), or $COURSE_RNN_EXERCISES.
exercises: $(STAMP)
	$(BIN)/python -m course_rnn.grading assign

# Grade every notebook in a folder: make grade SUBMISSIONS=dir [CSV=grades.csv] [TIME_LIMIT=60]
# [JOBS=2] [OVERWRITE=1] (seconds per submission; submissions graded at once; an existing grades
# file is replaced only with OVERWRITE=1)
grade: $(STAMP) bubblewrap
	@test -n "$(SUBMISSIONS)" || { echo "usage: make grade SUBMISSIONS=folder [CSV=grades.csv] [TIME_LIMIT=60] [JOBS=2] [OVERWRITE=1]"; exit 2; }
	$(BIN)/python -m course_rnn.grading grade $(SUBMISSIONS) --csv $(or $(CSV),grades.csv) \
	  $(if $(TIME_LIMIT),--time-limit $(TIME_LIMIT)) $(if $(JOBS),--jobs $(JOBS)) \
	  $(if $(OVERWRITE),--overwrite)

# Run a paper's experiment: make replicate EXPERIMENT=tabor-table4 [ARGS="--scale paper --seeds 5"]
# (EXPERIMENT=all runs every one; `.venv/bin/python -m course_rnn replicate --help` lists them.)
replicate: $(STAMP)
	@test -n "$(EXPERIMENT)" || { $(BIN)/python -m course_rnn list; echo "usage: make replicate EXPERIMENT=name [ARGS=...]"; exit 2; }
	COURSE_RNN_PROGRESS=1 $(BIN)/python -m course_rnn replicate $(EXPERIMENT) $(ARGS)

# The release: refuses at once if the version disagrees anywhere (pyproject.toml is the one place
# it is written; scripts/release.py check), builds the sdist and the wheel into dist/, checks them
# (metadata and twine check --strict, the whole package and its licence, no stray file), then
# installs the wheel as the README says into a fresh venv that runs chapter 3 and an assignment's
# grader.check (tests/packaging/test_wheel.py). RELEASE=1 adds what a tag needs: a dated
# CHANGELOG entry and committed files (CONTRIBUTING.md, "Releasing").
dist: $(STAMP)
	$(BIN)/python scripts/release.py dist $(if $(RELEASE),--release)
	COURSE_RNN_DIST=$(CURDIR)/dist $(BIN)/python -m pytest -q tests/packaging/test_wheel.py

lint: $(STAMP)
	$(BIN)/ruff check --fix src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks || true

clean:
	rm -rf book/_build .pytest_cache .hypothesis test-artifacts dist
