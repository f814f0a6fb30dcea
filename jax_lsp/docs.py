"""Documentation generated from the rule classes: the README's rule table and docs/rules/."""

from __future__ import annotations

from pathlib import Path

from jax_lsp.diagnostics import ALL_RULES

TABLE_START = "<!-- rules:start -->"
TABLE_END = "<!-- rules:end -->"


def rule_table() -> str:
    """The Markdown table of every rule, as the README shows it."""
    rows = [
        "| code | name | what is flagged | severity | fix |",
        "|---|---|---|---|---|",
    ]
    for rule in ALL_RULES:
        default = "" if rule.default_enabled else " (off by default)"
        summary = rule.summary.replace("|", "\\|")
        rows.append(
            f"| [{rule.code}](docs/rules/{rule.code}.md) | {rule.name} | "
            f"{summary}{default} | {rule.severity.value} | {rule.fix_label()} |"
        )
    return "\n".join(rows) + "\n"


def readme_with_table(readme: str) -> str:
    head, _, rest = readme.partition(TABLE_START)
    _, _, tail = rest.partition(TABLE_END)
    return f"{head}{TABLE_START}\n{rule_table()}{TABLE_END}{tail}"


def write_docs(root: Path) -> None:
    """Regenerate docs/rules/*.md and the README table under `root`."""
    folder = root / "docs" / "rules"
    folder.mkdir(parents=True, exist_ok=True)
    for rule in ALL_RULES:
        (folder / f"{rule.code}.md").write_text(rule.docs(), encoding="utf-8")
    readme = root / "README.md"
    readme.write_text(readme_with_table(readme.read_text(encoding="utf-8")), encoding="utf-8")


if __name__ == "__main__":
    write_docs(Path(__file__).resolve().parent.parent)
