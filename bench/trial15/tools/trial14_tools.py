"""trial14's tools (notebook maker, runner, editor session) pointed at this trial's folder."""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE.parent / "trial14" / "tools"))

import lsp_session  # noqa: E402
import make_notebooks  # noqa: E402
import run_all  # noqa: E402

for module in (lsp_session, make_notebooks, run_all):
    module.HERE = HERE  # each tool reads `HERE` when its main() runs
