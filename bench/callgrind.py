"""Machine instructions counted by valgrind's callgrind, for the benchmarks that compare
commits exactly: unlike time, the count does not move with the machine's load."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

_TOTALS = re.compile(r"^(?:summary|totals):\s+(\d+)", re.MULTILINE)


def count_instructions(arguments: list[str], toggle: str) -> int:
    """The instructions `python ARGUMENTS` executes inside the C function `toggle` (the one
    the measured part is called through: `functools_reduce`, `sys_call_tracing`), with the
    hash seed fixed so that set and dict orders are the same in every run."""
    with tempfile.TemporaryDirectory() as scratch:
        output = Path(scratch) / "callgrind.out"
        command = [
            "valgrind",
            "--tool=callgrind",
            "--collect-atstart=no",
            f"--toggle-collect={toggle}",
            f"--callgrind-out-file={output}",
            sys.executable,
            *arguments,
        ]
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        subprocess.run(command, check=True, capture_output=True, env=env)
        totals = _TOTALS.search(output.read_text())
    if totals is None:
        raise RuntimeError("callgrind counted nothing")
    return int(totals.group(1))
