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

.PHONY: book book-elsewhere test notebooks notebooks-elsewhere lint install web-assets npm chromium bubblewrap clean exercises grade replicate dist

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
# A page that shows another page's runs loads them from the build's jobs folder (COURSE_RNN_JOBS:
# emptied first, since a kept job is found by its arguments, not by the library's code).
book: $(STAMP) web-assets
	rm -rf book/_build/html book/_build/jobs  # no stale pages of removed files (executed notebooks stay cached)
	COURSE_RNN_JOBS=$(CURDIR)/book/_build/jobs $(BIN)/jupyter-book build -W -n --keep-going book/
	@echo "Open book/_build/html/index.html"

# make test builds the book once, afresh, at a seed offset taken from the commit
# (scripts/ci_offset.py, printed first; 1000 while benchmarks/weak_claims.json lists a claim,
# which a fresh offset could fail), so no claim can be fitted to one offset: one more variant that
# nobody chose, beside the many benchmarks/robustness.py measures every chapter under.
# SEED_OFFSET=n repeats offset n (the one a CI log printed). The kernels are the CPU's own: CI's
# machines differ from run to run, and PyTorch's portable kernels doubled a word model's training
# (chapter 1), which took CI to 89 min of its 90 (stop 68); `ATEN_CPU_CAPABILITY=default make test`
# builds with them (do so after changing a chapter's claims). The build is executed afresh (a
# change to the library reaches every chapter) into book/_build/elsewhere: make book's site and
# cache, at offset 0, are left as they are. Each chapter runs once in make test (it ran twice,
# book and nbval, until session 24), on the checked device (COURSE_RNN_DEVICE=checked: the CPU
# with a GPU's refusals, the same numbers bit for bit), so a chapter's .numpy() of a device tensor
# fails here, not first on a lent GPU (it found one in chapter 3 part 2). Every finished job is
# kept in the build's own jobs folder (COURSE_RNN_JOBS, emptied with the build), so a page that
# shows another page's runs (chapter 4's and chapter 6's second parts) loads them, not trains them
# again.
ELSEWHERE := book/_build/elsewhere
book-elsewhere: $(STAMP) web-assets
	@offset=$$($(BIN)/python scripts/ci_offset.py $(SEED_OFFSET)) && \
	  echo "book-elsewhere: seed offset $$offset, kernels $${ATEN_CPU_CAPABILITY:-of this CPU}, checked device (repeat: make test SEED_OFFSET=$$offset)" && \
	  rm -rf $(ELSEWHERE) && \
	  COURSE_RNN_SEED_OFFSET=$$offset COURSE_RNN_DEVICE=checked COURSE_RNN_JOBS=$(CURDIR)/$(ELSEWHERE)/jobs \
	  $(BIN)/jupyter-book build -W -n --keep-going --path-output $(ELSEWHERE) book/

# The site tests (tests/book/) check that site. The tests run in two processes (pytest-xdist; a
# file's tests stay together) on the checked device (COURSE_RNN_DEVICE=checked: the CPU with a
# GPU's refusals, course_rnn/device_check.py — a .numpy() of a device tensor, a plot of one, or a
# CPU tensor mixed with one fails here, not first on a lent GPU; ≈ 1.2× the CPU time), except the
# grader's (tests/exercises/), which run alone: their time limits and their check of what a
# submission left behind (processes, /dev/shm) must not see other tests' work.
test: book-elsewhere chromium bubblewrap
	$(BIN)/ruff check src tests benchmarks scripts
	COURSE_RNN_DEVICE=checked COURSE_RNN_SITE=$(ELSEWHERE)/_build/html \
	  $(BIN)/python -m pytest -n 2 --dist loadfile --ignore=tests/exercises --durations=25
	$(BIN)/python -m pytest tests/exercises --durations=10

# Every chapter notebook through nbval (make test already executes each once, in the book build).
# On a GPU machine: COURSE_RNN_DEVICE=cuda make notebooks; the papers' sizes: COURSE_RNN_SCALE=paper.
notebooks: $(STAMP)
	$(BIN)/python -m pytest chapters

# The chapters through nbval (no site) as make test's book build runs them: the seed offset
# taken from the commit (SEED_OFFSET=n: another), the checked device (ATEN_CPU_CAPABILITY=default
# in the environment: the portable kernels). One notebook at a time: two at
# once, each training in one process, took as long (session 14) — the chapters' own worker
# processes already use both cores.
notebooks-elsewhere: $(STAMP)
	@offset=$$($(BIN)/python scripts/ci_offset.py $(SEED_OFFSET)) && \
	  echo "notebooks-elsewhere: seed offset $$offset, kernels $${ATEN_CPU_CAPABILITY:-of this CPU}, checked device (repeat: make notebooks-elsewhere SEED_OFFSET=$$offset)" && \
	  COURSE_RNN_SEED_OFFSET=$$offset COURSE_RNN_DEVICE=checked \
	  $(BIN)/python -m pytest chapters

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
	$(BIN)/ruff check --fix src tests benchmarks scripts
	$(BIN)/ruff format --check src tests benchmarks scripts || true

clean:
	rm -rf book/_build .pytest_cache .hypothesis test-artifacts dist
