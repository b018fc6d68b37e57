"""Fixtures for the tests of the built website (book/_build/html, made by `make book`).

Outside CI a missing site or browser skips these tests with the reason; under CI=true it fails
them, so CI can never pass without having built and checked the site.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
# COURSE_RNN_SITE points the tests at another build (e.g. a copy of the book built elsewhere).
SITE = Path(os.environ.get("COURSE_RNN_SITE", ROOT / "book" / "_build" / "html"))
# The chapter notebooks (chapters/NN_*.ipynb), in the order of their names: each is a page.
CHAPTERS = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.ipynb"))
# Folders of the site that hold assets, not pages.
ASSET_FOLDERS = {"_static", "_sources", "_images", "vendor"}

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    # This machine's network is closed: without these Chromium's own background connections
    # fail by the dozen (and would show up as failed requests).
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-quic",
    "--no-first-run",
    "--disable-sync",
]


def reading_benchmark():
    """``benchmarks/reading.py`` as a module (loaded once): the pages' main line as its reading
    time counts it."""
    import importlib.util

    if "reading_benchmark" not in sys.modules:
        spec = importlib.util.spec_from_file_location("reading_benchmark",
                                                      ROOT / "benchmarks" / "reading.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    return sys.modules["reading_benchmark"]


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def skip_or_fail(reason: str) -> None:
    """Skip a test whose prerequisite is missing, or fail it under CI where it must run."""
    if in_ci():
        pytest.fail(f"{reason} (CI=true: this test must run)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def site() -> Path:
    """The built site's folder."""
    if not (SITE / "intro.html").is_file():
        skip_or_fail(f"no built site at {SITE}: run `make book` first")
    return SITE


@pytest.fixture(scope="session")
def site_pages(site: Path) -> list[Path]:
    """Every HTML page of the site (not the vendored assets), sorted."""
    return sorted(
        path
        for path in site.rglob("*.html")
        if path.relative_to(site).parts[0] not in ASSET_FOLDERS
    )


def block_other_hosts(page, server: str, problems: list[str]) -> None:
    """Let ``page`` load only from ``server``'s host: any other request is aborted and noted in
    ``problems`` (a reader with no network would not get it either)."""
    local = urlsplit(server).netloc

    def route(request_route) -> None:
        if urlsplit(request_route.request.url).netloc in {local, ""}:
            request_route.continue_()
        else:
            problems.append(f"blocked request to another host: {request_route.request.url}")
            request_route.abort("blockedbyclient")

    page.route("**/*", route)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def server(site: Path) -> Iterator[str]:
    """Serve the site on 127.0.0.1 and yield its base URL."""
    port = free_port()
    command = [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"]
    process = subprocess.Popen(
        command, cwd=site, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 15
        while True:
            try:
                urllib.request.urlopen(f"{base}/intro.html", timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"http.server did not start: {' '.join(command)}") from None
                time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory):
    """A headless Chromium with a fresh profile, through playwright."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        skip_or_fail("python playwright is not installed (pip install -r requirements.txt)")
    if not CHROMIUM.exists():
        skip_or_fail(f"{CHROMIUM} missing (apt-get install chromium; `make test` does it)")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            user_data_dir=tmp_path_factory.mktemp("chromium-profile"),
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 900},
        )
        try:
            yield context
        finally:
            context.close()


@pytest.fixture(scope="module")
def screenshots() -> Path:
    """An emptied test-artifacts/site/ folder (git-ignored) for one screenshot per page."""
    folder = ROOT / "test-artifacts" / "site"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder
