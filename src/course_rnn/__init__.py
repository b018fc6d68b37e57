"""course_rnn: the shared library behind the course "How recurrent networks learn syntax".

``course_rnn.__version__`` is the installed package's version, read from its metadata, which
pip writes from ``pyproject.toml`` (the one place the version is written; scripts/release.py
checks that the book, the chapters' setup cell and CITATION.cff agree). It is read on first use,
so that ``import course_rnn`` stays instant. A source folder put on ``sys.path`` without being
installed reports ``0+unknown``; an editable install reports the version it was installed at
(``make install`` reinstalls it when pyproject.toml changes).
"""


def __getattr__(name: str) -> str:
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            found = version(__name__)
        except PackageNotFoundError:
            found = "0+unknown"
        globals()["__version__"] = found
        return found
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
