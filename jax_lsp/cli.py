"""The command line: `jax-lsp serve | check | rules | rule | explain`.

Only the standard library and `jax_lsp.exit_codes` at import: each command imports what it
needs, so `serve` (which must answer its editor quickly) loads none of the `check` machinery.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from jax_lsp import __version__
from jax_lsp.exit_codes import EXIT_CLEAN, EXIT_USAGE

OUTPUT_FORMATS = ("concise", "full", "json", "sarif", "text")  # jax_lsp.reporting.FORMATTERS


def _cmd_check(args: argparse.Namespace) -> int:
    from jax_lsp.checking import run_check

    return run_check(args)


def _cmd_rules(args: argparse.Namespace) -> int:
    from jax_lsp.diagnostics import ALL_RULES

    if args.output_format == "json":
        rows = [_rule_json(rule, explanation=False) for rule in ALL_RULES]
        print(json.dumps(rows, indent=2))
        return EXIT_CLEAN
    width = max(len(rule.name) for rule in ALL_RULES)
    fix_width = max(len(rule.fix_label()) for rule in ALL_RULES)
    print(f"{'code':<8}{'name':<{width + 2}}{'fix':<{fix_width + 2}}what is flagged")
    for rule in ALL_RULES:
        default = "" if rule.default_enabled else " (off by default)"
        fix = rule.fix_label()
        print(
            f"{rule.code:<8}{rule.name:<{width + 2}}{fix:<{fix_width + 2}}{rule.summary}{default}"
        )
    return EXIT_CLEAN


def _rule_json(rule, explanation: bool = True) -> dict:
    """A rule as `rules` and `rule` print it in JSON (`rule` with its documentation)."""
    row = {
        "code": rule.code,
        "name": rule.name,
        "summary": rule.summary,
        "severity": rule.severity.value,
        "default": rule.default_enabled,
        "fix": rule.fix_label(),
        "url": rule.url(),
    }
    if explanation:
        row["explanation"] = rule.docs()
    return row


def _cmd_explain(args: argparse.Namespace) -> int:
    """`explain CODE`, and ruff's spelling of it: `rule CODE` or `rule --all`."""
    from jax_lsp.diagnostics import ALL_RULES, RULES_BY_CODE

    every = getattr(args, "all", False)
    if every == bool(args.code):
        print("jax-lsp: error: give a rule code or --all", file=sys.stderr)
        return EXIT_USAGE
    if every:
        chosen = list(ALL_RULES)
    else:
        rule = RULES_BY_CODE.get(args.code.upper())
        if rule is None:
            print(f"jax-lsp: error: unknown rule code {args.code!r}", file=sys.stderr)
            return EXIT_USAGE
        chosen = [rule]
    if getattr(args, "output_format", "text") == "json":
        rows = [_rule_json(rule) for rule in chosen]
        print(json.dumps(rows if every else rows[0], indent=2))
        return EXIT_CLEAN
    print("\n".join(rule.docs() for rule in chosen), end="" if every else "\n")
    return EXIT_CLEAN


def _cmd_serve(args: argparse.Namespace) -> int:
    # Importing the server builds ~50,000 objects that live as long as it does (lsprotocol's
    # ~1,000 classes, the rules): collecting garbage among them while they are built finds none
    # and costs 30-90 ms of start-up. Frozen afterwards, later collections skip them too.
    gc.disable()
    try:
        from jax_lsp.server import serve
    finally:
        gc.freeze()
        gc.enable()
    return serve(tcp=args.tcp, log_file=args.log_file)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jax-lsp", description="Catch JAX's common gotchas, in the editor and in CI."
    )
    parser.add_argument("--version", action="version", version=f"jax-lsp {__version__}")
    commands = parser.add_subparsers(dest="command")

    serve = commands.add_parser("serve", help="run the language server (stdio by default)")
    serve.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")
    serve.add_argument("--log-file", metavar="PATH", help="also write the server log here")
    serve.set_defaults(handler=_cmd_serve)

    check = commands.add_parser("check", help="check files and folders")
    check.add_argument("paths", nargs="*", help="files or folders (default: .)")
    check.add_argument(
        "--config", metavar="PATH", help="settings from this pyproject.toml or TOML file"
    )
    check.add_argument("--select", metavar="CODES", help="only these codes (comma-separated)")
    check.add_argument("--extend-select", metavar="CODES", help="also these codes")
    check.add_argument("--ignore", metavar="CODES", help="skip these codes")
    check.add_argument("--extend-exclude", metavar="GLOBS", help="also skip these paths")
    check.add_argument(
        "--respect-gitignore",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="skip what .gitignore and .ignore files name (default: on)",
    )
    check.add_argument(
        "--output-format",
        choices=OUTPUT_FORMATS,
        help="full (with the source line) on a terminal, else concise",
    )
    check.add_argument("--fix", action="store_true", help="apply safe fixes in place")
    check.add_argument(
        "--unsafe-fixes",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="count unsafe fixes as fixable, and apply them with --fix",
    )
    check.add_argument(
        "--diff", action="store_true", help="show what --fix would change; write nothing"
    )
    check.add_argument("--watch", action="store_true", help="check again when files change")
    check.add_argument("--statistics", action="store_true", help="count findings per code")
    check.add_argument(
        "--quiet", "-q", action="store_true", help="print the findings only, no summary"
    )
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even with findings")
    check.add_argument(
        "--exit-non-zero-on",
        choices=("error", "warning", "info"),
        default="info",
        metavar="SEVERITY",
        help="exit 1 only for findings of this severity or worse: error, warning or info "
        "(default: info, any finding)",
    )
    check.add_argument(
        "--jobs", "-j", type=int, default=0, help="worker processes (default: all cores)"
    )
    check.set_defaults(handler=_cmd_check)

    rules = commands.add_parser("rules", help="list the rules")
    rules.add_argument("--output-format", choices=("text", "json"), default="text")
    rules.set_defaults(handler=_cmd_rules)

    explain = commands.add_parser("explain", help="show a rule's documentation")
    explain.add_argument("code", help="a rule code, e.g. JAX201")
    explain.set_defaults(handler=_cmd_explain)

    rule = commands.add_parser(
        "rule", help="show a rule's documentation, or every rule's (as `ruff rule`)"
    )
    rule.add_argument("code", nargs="?", help="a rule code, e.g. JAX201")
    rule.add_argument("--all", action="store_true", help="every rule's documentation")
    rule.add_argument("--output-format", choices=("text", "json"), default="text")
    rule.set_defaults(handler=_cmd_explain)
    for command in commands.choices.values():  # its usage, for an unrecognized argument
        command.set_defaults(command_parser=command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The command's exit status. `argv` None: the process's own command line (the `jax-lsp`
    script, `python -m jax_lsp`), whose `check` ends the process itself (`_end_check`)."""
    parser = build_parser()
    try:
        args, unknown = parser.parse_known_args(argv)
        if unknown:
            # Reported with the command's own usage, as ruff does (`jax-lsp check --bogus`).
            command = getattr(args, "command_parser", parser)
            command.error(f"unrecognized arguments: {' '.join(unknown)}")
    except SystemExit as exit_:
        return int(exit_.code or 0) and EXIT_USAGE
    if args.command is None:
        parser.print_usage(sys.stderr)
        print(
            "jax-lsp: error: a command is required (serve, check, rules, rule, explain)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    try:
        status = args.handler(args)
    except KeyboardInterrupt:
        status = 130
    except BrokenPipeError:
        return EXIT_CLEAN
    if argv is None and args.handler is _cmd_check:
        _end_check(status)
    return status


def _end_check(status: int) -> NoReturn:
    """End a `check` process at once, its output flushed: the interpreter's teardown would
    free the run's heap object by object (every parse, model and memo still cached: seconds
    over a large tree) for nobody. Nothing is left to run at exit: the workers are joined,
    fixed files are written and closed, the cycle collector is off (`tune_gc_for_batch`)."""
    for stream in (sys.stdout, sys.stderr):
        # A closed pipe or stream: nothing more can be said.
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    if "logging" in sys.modules:  # a handler's buffered records
        sys.modules["logging"].shutdown()
    os._exit(status)


if __name__ == "__main__":
    sys.exit(main())
