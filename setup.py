"""The build's one step beyond pyproject.toml: the committed runs go into the package.

The chapters read the larger runs kept in ``benchmarks/results/replications/``
(``course_rnn.experiments.committed``). An installed package has no ``benchmarks/`` folder, so
building a wheel copies every committed run folder into ``course_rnn/experiments/committed_runs/``,
where ``committed.RUNS`` looks outside a checkout. An editable install reads them in place.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

RUNS = Path(__file__).resolve().parent / "benchmarks" / "results" / "replications"
TARGET = Path("course_rnn") / "experiments" / "committed_runs"


class BuildWithCommittedRuns(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        folders = sorted(p for p in RUNS.glob("*/") if (p / "results.json").is_file())
        if not folders:
            raise RuntimeError(f"no committed runs in {RUNS}: build from a checkout of the "
                               "repository or from its sdist (make dist)")
        for folder in folders:
            target = Path(self.build_lib) / TARGET / folder.name
            target.mkdir(parents=True, exist_ok=True)
            for path in sorted(p for p in folder.iterdir() if p.is_file()):
                shutil.copy2(path, target / path.name)


setup(cmdclass={"build_py": BuildWithCommittedRuns})
