"""trial14's `tools/lsp_session.py` on this trial's folder (same usage)."""

from trial14_tools import lsp_session

if __name__ == "__main__":
    lsp_session.main()
