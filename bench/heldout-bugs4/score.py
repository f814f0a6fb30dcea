#!/usr/bin/env python3
"""Score a JAX linter on this folder with bench/heldout-bugs/score.py (the scorer of
/work/shared/corpus/real-bugs), pointed at this folder's labels.tsv and files.

Usage (from anywhere): python3 score.py [COMMAND ...]
"""

import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "heldout_score", os.path.join(HERE, "..", "heldout-bugs", "score.py")
)
scorer = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scorer)
scorer.HERE = HERE

if __name__ == "__main__":
    sys.exit(scorer.main(sys.argv))
