"""trial14's `tools/make_notebooks.py` on this trial's folder (same usage)."""

from trial14_tools import make_notebooks

if __name__ == "__main__":
    make_notebooks.main()
