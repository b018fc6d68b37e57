"""Where results go: one check of an output folder, light enough to run before anything heavy is
imported (the CLI refuses a bad ``--out`` at once, not after the experiment has run)."""

from __future__ import annotations

from pathlib import Path

#: The folder of an output folder where ``replicate`` keeps each finished job until results.json
#: is saved (:func:`~.workers.keep_jobs`), and the suffix of one stored job's file.
JOBS = "jobs"
JOB_SUFFIX = ".pt"


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


def stored_jobs(folder: str | Path) -> int:
    """How many finished jobs' results ``folder`` (a job store) holds; temporary files, whose
    names start with a dot, do not count."""
    folder = Path(folder)
    if not folder.is_dir():
        return 0
    return sum(1 for p in folder.iterdir()
               if p.suffix == JOB_SUFFIX and not p.name.startswith("."))


def check_unfinished(out: str | Path, resume: bool = False, overwrite: bool = False) -> int:
    """How many finished jobs an unfinished run left in ``out`` (in its ``jobs/``);
    FileExistsError when there are some and neither ``resume`` (continue that run) nor
    ``overwrite`` (start afresh) says what to do with them: finished work is never thrown away
    unasked."""
    count = stored_jobs(Path(out) / JOBS)
    if count and not (resume or overwrite):
        raise FileExistsError(f"{Path(out) / JOBS} holds {count} finished jobs of an unfinished "
                              "run: pass --resume to continue it, or --overwrite to start afresh")
    return count
