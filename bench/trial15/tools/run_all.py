"""trial14's `tools/run_all.py` on this trial's folder (same usage)."""

from trial14_tools import run_all

if __name__ == "__main__":
    run_all.main()
