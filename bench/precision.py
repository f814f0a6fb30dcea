"""Precision on real code: every finding of `jax-lsp check` on the pinned corpus, judged.

Run `python bench/precision.py [REQUIREMENTS...]` (default: both pinned lists in bench/). It
checks each list's packages with all rules, saves the findings to
`bench/results/corpus-findings.json` and a per-code table, then compares them with the
human judgements in `bench/triage.csv` (package, path, line, code, verdict, note):
findings per code, how many are triaged, false findings per 10,000 lines, and the findings
nobody has judged yet (exit status 1 while there are any); per list, then over all lists.
A list `NAME-jax-packages.txt` may keep its judgements apart in `bench/triage-NAME.csv` (the
held-out list does, so its figure stays one of code nobody tuned to); they are read as well.
Lists other than the two pinned ones save their findings beside, named after the lists.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` and `jax_lsp` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.corpus import LISTS, REPO_ROOT, Corpus, ensure_corpus

TRIAGE = REPO_ROOT / "bench" / "triage.csv"
RESULTS = REPO_ROOT / "bench" / "results"
TRIAGE_COLUMNS = ("package", "path", "line", "code", "verdict", "note")
# A debatable finding (a judgement call either way) counts as false: the bar is about trust.
_VERDICTS = {"true": True, "false": False, "debatable": False}


@dataclass(frozen=True)
class CorpusFinding:
    package: str
    path: str  # relative to the package root, e.g. "flax/linen/module.py"
    line: int  # 1-based
    code: str
    message: str = ""

    @property
    def key(self) -> tuple[str, str, int, str]:
        # Judgements keep codes upper-cased; `invalid-syntax` is the one lower-case code.
        return (self.package, self.path, self.line, self.code.upper())


@dataclass(frozen=True)
class Judgement:
    package: str
    path: str
    line: int
    code: str
    verdict: bool  # True: a real JAX gotcha; False: a false finding
    note: str

    @property
    def key(self) -> tuple[str, str, int, str]:
        return (self.package, self.path, self.line, self.code)


@dataclass
class CodeRow:
    findings: int = 0
    triaged: int = 0
    true: int = 0
    false: int = 0


@dataclass
class Report:
    lines: int
    by_code: dict[str, CodeRow] = field(default_factory=dict)
    untriaged: list[CorpusFinding] = field(default_factory=list)
    stale: list[Judgement] = field(default_factory=list)  # judged, but no longer found

    @property
    def false_findings(self) -> int:
        return sum(row.false for row in self.by_code.values())

    @property
    def false_per_10k_lines(self) -> float:
        return 10_000 * self.false_findings / self.lines if self.lines else 0.0


def read_triage(rows: Iterable[str]) -> list[Judgement]:
    """Parse triage CSV text (header row first; blank lines and `#` lines skipped)."""
    content = (row for row in rows if row.strip() and not row.lstrip().startswith("#"))
    reader = csv.DictReader(content)
    missing = set(TRIAGE_COLUMNS) - set(reader.fieldnames or ())
    if missing:
        raise ValueError(f"triage file lacks columns: {', '.join(sorted(missing))}")
    judgements = []
    for row in reader:
        verdict = row["verdict"].strip().lower()
        if verdict not in _VERDICTS:
            raise ValueError(
                f"triage verdict must be true, false or debatable, got {row['verdict']!r}"
            )
        judgements.append(
            Judgement(
                row["package"].strip(),
                row["path"].strip(),
                int(row["line"]),
                row["code"].strip().upper(),
                _VERDICTS[verdict],
                (row["note"] or "").strip(),
            )
        )
    return judgements


def compare(findings: list[CorpusFinding], judgements: list[Judgement], lines: int) -> Report:
    """Match findings to judgements by (package, path, line, code)."""
    by_key = {judgement.key: judgement for judgement in judgements}
    report = Report(lines)
    found = set()
    for finding in findings:
        row = report.by_code.setdefault(finding.code, CodeRow())
        row.findings += 1
        judgement = by_key.get(finding.key)
        if judgement is None:
            report.untriaged.append(finding)
            continue
        found.add(finding.key)
        row.triaged += 1
        if judgement.verdict:
            row.true += 1
        else:
            row.false += 1
    report.stale = [j for j in judgements if j.key not in found]
    report.by_code = dict(sorted(report.by_code.items()))
    return report


def run_check(corpus: Corpus) -> list[CorpusFinding]:
    """`jax-lsp check --select ALL --output-format json` over the corpus folder."""
    command = [
        sys.executable, "-m", "jax_lsp", "check", "--select", "ALL",
        "--output-format", "json", "--exit-zero",
        *(str(corpus.root / package) for package in corpus.lines),
    ]  # fmt: skip
    output = subprocess.run(
        command, cwd=REPO_ROOT, capture_output=True, text=True, check=True
    ).stdout
    findings = []
    for item in json.loads(output or "[]"):
        package, path = corpus.package_of(Path(item["filename"]))
        findings.append(
            CorpusFinding(package, path, item["location"]["row"], item["code"], item["message"])
        )
    return findings


def format_report(report: Report) -> str:
    out = [
        "| code | findings | triaged | true | false |",
        "|------|---------:|--------:|-----:|------:|",
    ]
    for code, row in report.by_code.items():
        out.append(f"| {code} | {row.findings} | {row.triaged} | {row.true} | {row.false} |")
    rows = report.by_code.values()
    totals = [sum(getattr(r, name) for r in rows) for name in ("findings", "triaged", "true")]
    out.append(f"| all | {' | '.join(map(str, totals))} | {report.false_findings} |")
    out.append("")
    out.append(
        f"{report.false_findings} false findings in {report.lines:,} lines: "
        f"{report.false_per_10k_lines:.2f} per 10,000 lines (target: at most 1)"
    )
    if report.untriaged:
        out.append(f"\n{len(report.untriaged)} untriaged findings (add them to bench/triage.csv):")
        out.extend(
            f"{f.package},{f.path},{f.line},{f.code},,  # {f.message}" for f in report.untriaged
        )
    if report.stale:
        out.append(f"\n{len(report.stale)} triage rows no longer found (fixed or moved):")
        out.extend(f"{j.package},{j.path},{j.line},{j.code}" for j in report.stale)
    return "\n".join(out)


def _own_triage(requirements: Path) -> Path:
    """`bench/triage-NAME.csv` for `NAME-jax-packages.txt`: a list's judgements kept apart."""
    return TRIAGE.with_name(f"triage-{requirements.stem.removesuffix('-jax-packages')}.csv")


def _findings_file(requirements: list[Path]) -> str:
    """`corpus-findings.json` for the pinned lists; other lists get a file of their own, so
    measuring them does not overwrite the pinned figures."""
    if [path.resolve() for path in requirements] == [path.resolve() for path in LISTS]:
        return "corpus-findings.json"
    names = "+".join(path.stem.removesuffix("-jax-packages") for path in requirements)
    return f"corpus-findings-{names}.json"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("requirements", nargs="*", type=Path, default=list(LISTS))
    parser.add_argument("--triage", type=Path, default=TRIAGE, help="judgements for every list")
    parser.add_argument(
        "--reuse", action="store_true", help="compare the saved findings, don't run check"
    )
    args = parser.parse_args()
    corpora = [
        (requirements.name, ensure_corpus(requirements)) for requirements in args.requirements
    ]
    saved = RESULTS / _findings_file(args.requirements)
    if args.reuse and saved.is_file():
        everything = [CorpusFinding(**item) for item in json.loads(saved.read_text("utf-8"))]
        found = {
            name: [f for f in everything if f.package in corpus.lines] for name, corpus in corpora
        }
    else:
        found = {name: run_check(corpus) for name, corpus in corpora}
    findings = [finding for name, _ in corpora for finding in found[name]]
    RESULTS.mkdir(parents=True, exist_ok=True)
    saved.write_text(json.dumps([asdict(f) for f in findings], indent=1) + "\n", "utf-8")
    counts = Counter(f.code for f in findings)
    table = "\n".join(f"{code}\t{count}" for code, count in sorted(counts.items()))
    saved.with_name(f"{saved.stem}-by-code.tsv").write_text(
        f"code\tfindings\n{table}\n", encoding="utf-8"
    )
    judgements = [
        judgement
        for triage in dict.fromkeys([args.triage, *map(_own_triage, args.requirements)])
        if triage.is_file()
        for judgement in read_triage(triage.read_text(encoding="utf-8").splitlines())
    ]
    for name, corpus in corpora:
        own = [judgement for judgement in judgements if judgement.package in corpus.lines]
        print(f"## {name}\n")
        print(format_report(compare(found[name], own, corpus.total_lines)) + "\n")
    lines = sum(corpus.total_lines for _, corpus in corpora)
    measured = {package for _, corpus in corpora for package in corpus.lines}
    report = compare(findings, [j for j in judgements if j.package in measured], lines)
    if len(corpora) > 1:
        print("## all lists\n")
        print(format_report(report))
    return 1 if report.untriaged else 0


if __name__ == "__main__":
    sys.exit(main())
