"""Where results go: one check of an output folder, light enough to run before anything heavy is
imported (the CLI refuses a bad ``--out`` at once, not after the experiment has run)."""

from __future__ import annotations

from pathlib import Path


def check_output_folder(out: str | Path, overwrite: bool = False, create: bool = False) -> Path:
    """``out`` as a Path, if a result may be saved there: ValueError when it (or a folder above it)
    is a file, FileExistsError when it holds a ``results.json`` and ``overwrite`` is False.

    ``create=True`` (the CLI, before any work) also makes the folder and writes and removes a probe
    file in it, so that a read-only or impossible place (``/proc/…``) is refused at once, with the
    operating system's reason, instead of after the experiment has run.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"output path {str(out)!r} exists and is not a folder")
    above = next((p for p in out.parents if p.exists()), None)
    if above is not None and not above.is_dir():
        raise ValueError(f"output path {str(out)!r} lies inside {str(above)!r}, which is a file")
    if (out / "results.json").exists() and not overwrite:
        raise FileExistsError(f"{out / 'results.json'} already exists: choose another folder "
                              "(--out) or pass --overwrite")
    if create:
        try:
            out.mkdir(parents=True, exist_ok=True)
            probe = out / ".write-test"
            probe.write_text("")
            probe.unlink()
        except OSError as err:
            raise ValueError(f"cannot write results into {str(out)!r}: "
                             f"{err.strerror or err}") from None
    return out
