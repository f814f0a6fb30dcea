"""Scores jax-lsp on the trial15 programs (`bench/programs_score.py` on `programs/`).

Usage (from this folder): PYTHONPATH=<tree> python score.py <command that runs jax-lsp>...
e.g. `PYTHONPATH=../.. python score.py python -P -m jax_lsp`.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # the repository: `bench` is a package

from bench.programs_score import main  # noqa: E402

if __name__ == "__main__":
    main(HERE / "programs")
