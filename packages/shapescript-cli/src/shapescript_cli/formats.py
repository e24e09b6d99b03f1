"""The check command's output formats beyond the core's three, and its summary.

* ``json`` -- the core's array (one object per diagnostic, ``docs/diagnostics.md``), each
  object with three more fields: ``schema_version`` (``JSON_SCHEMA_VERSION``; raised when
  a field changes meaning or goes away, never for an added one), ``explain`` (the
  command that explains the code) and ``url`` (its explain page online; null when the
  installation doesn't say where the project lives).
* ``github`` -- GitHub Actions workflow commands, one line each
  (``::error file=…,line=…,col=…,endLine=…,endColumn=…,title=E0413::message``): the run's
  page shows each as an annotation on the pull request's diff.
* ``sarif`` -- one SARIF 2.1.0 log (GitHub code scanning, and most CI dashboards), its
  rules the codes reported, each with its title and explain page.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

if TYPE_CHECKING:
    from shapescript.diagnostics import Diagnostic

__all__ = ["JSON_SCHEMA_VERSION", "SARIF_SCHEMA", "explain_url", "render_github",
           "render_json", "render_sarif", "render_statistics", "summary"]

JSON_SCHEMA_VERSION = 1
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
# Where the explain pages live in the repository named by the package's metadata.
_PAGES = "blob/main/packages/shapescript-core/src/shapescript/explanations"


def _repository() -> str | None:
    """The project's repository URL, from the installed metadata (one place: the
    packages' ``[project.urls]``)."""
    from importlib.metadata import PackageNotFoundError, metadata

    try:
        urls = metadata("shapescript-cli").get_all("Project-URL") or []
    except PackageNotFoundError:
        return None
    for entry in urls:
        label, _, url = entry.partition(",")
        if label.strip().lower() == "repository":
            return url.strip().rstrip("/")
    return None


_REPO: list[str | None] = []


def explain_url(code: str) -> str | None:
    """The explain page of ``code`` online, or None when unknown."""
    if not _REPO:
        _REPO.append(_repository())
    repo = _REPO[0]
    return f"{repo}/{_PAGES}/{code}.md" if repo else None


def render_json(diags: Sequence[Diagnostic]) -> str:
    """The core's JSON array, each object with ``schema_version``, ``explain``, ``url``."""
    from shapescript.api import render_diagnostics

    objects = json.loads(render_diagnostics(diags, {}, fmt="json"))
    for obj in objects:
        obj["schema_version"] = JSON_SCHEMA_VERSION
        obj["explain"] = f"shapescript explain {obj['code']}"
        obj["url"] = explain_url(obj["code"])
    return json.dumps(objects, indent=2, ensure_ascii=False) + "\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(diags: Sequence[Diagnostic]) -> str:
    """One GitHub Actions workflow command per diagnostic."""
    out = []
    for d in diags:
        level = "error" if d.severity == "error" else "warning"
        props = []
        if d.file:
            props += [f"file={_escape_property(d.file)}", f"line={d.line}", f"col={d.column}",
                      f"endLine={d.end_line}", f"endColumn={d.end_column}"]
        props.append(f"title={_escape_property(f'{d.code} ' + _title(d.code))}")
        message = f"{d.message} [{d.code}]"
        if d.help:
            message += f"\nhelp: {d.help}"
        out.append(f"::{level} {','.join(props)}::{_escape_data(message)}\n")
    return "".join(out)


def _title(code: str) -> str:
    from shapescript.api import CODES

    info = CODES.get(code)
    return info.title if info is not None else code


def _uri(path: str, base: Path) -> str:
    """``path`` as a SARIF URI: relative to ``base`` (with forward slashes) when inside
    it, else a ``file://`` URI."""
    absolute = Path(os.path.abspath(path))
    try:
        rel = absolute.relative_to(base).as_posix()
        return quote(rel)
    except ValueError:
        return absolute.as_uri()


def render_sarif(diags: Sequence[Diagnostic], *, version: str,
                 base: str | None = None) -> str:
    """One SARIF 2.1.0 log of ``diags``; file URIs relative to ``base`` (the current
    folder by default, which is the repository's top in CI)."""
    root = Path(os.path.abspath(base or os.getcwd()))
    codes = list(dict.fromkeys(d.code for d in diags))
    rules = []
    for code in codes:
        rule: dict[str, Any] = {
            "id": code,
            "name": code,
            "shortDescription": {"text": _title(code)},
            "help": {"text": f"Run `shapescript explain {code}`."},
        }
        url = explain_url(code)
        if url:
            rule["helpUri"] = url
        rules.append(rule)
    index = {code: i for i, code in enumerate(codes)}

    def location(file: str, line: int, column: int, end_line: int, end_column: int,
                 message: str = "") -> dict[str, Any]:
        region = {"startLine": max(line, 1), "startColumn": max(column, 1),
                  "endLine": max(end_line, line, 1),
                  "endColumn": max(end_column, 1)}
        loc: dict[str, Any] = {"physicalLocation": {
            "artifactLocation": {"uri": _uri(file, root)}, "region": region}}
        if message:
            loc["message"] = {"text": message}
        return loc

    results = []
    for d in diags:
        text = d.message + (f"\nhelp: {d.help}" if d.help else "")
        result: dict[str, Any] = {
            "ruleId": d.code,
            "ruleIndex": index[d.code],
            "level": "error" if d.severity == "error" else "warning",
            "message": {"text": text},
        }
        if d.file:
            result["locations"] = [location(d.file, d.line, d.column, d.end_line,
                                            d.end_column)]
            related = [location(lb.file, lb.line, lb.column, lb.end_line, lb.end_column,
                                lb.message)
                       for lb in d.labels[1:] if lb.file]
            for i, loc in enumerate(related):
                loc["id"] = i
            if related:
                result["relatedLocations"] = related
        results.append(result)
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "shapescript",
                "version": version,
                "informationUri": _repository() or "https://pypi.org/project/shapescript/",
                "rules": rules,
            }},
            # Our columns count characters (code points), as the other formats' do.
            "columnKind": "unicodeCodePoints",
            "originalUriBaseIds": {"%SRCROOT%": {"uri": root.as_uri() + "/"}},
            "results": results,
        }],
    }
    for result in results:
        for loc in result.get("locations", []) + result.get("relatedLocations", []):
            art = loc["physicalLocation"]["artifactLocation"]
            if not art["uri"].startswith("file:"):
                art["uriBaseId"] = "%SRCROOT%"
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def render_statistics(diags: Sequence[Diagnostic], fmt: str) -> str:
    """How many of each code, most first (``--statistics``): a table, or JSON."""
    counts: dict[str, int] = {}
    for d in diags:
        counts[d.code] = counts.get(d.code, 0) + 1
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    if fmt in ("json", "sarif"):
        data = [{"code": c, "count": n, "title": _title(c)} for c, n in rows]
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    width = max((len(str(n)) for _, n in rows), default=1)
    return "".join(f"{str(n).rjust(width)}  {c}  {_title(c)}\n" for c, n in rows)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def summary(diags: Sequence[Diagnostic], checked: int) -> str:
    """One line for the end: ``Found 3 errors in 2 files (5 checked).``; empty when
    there is nothing to report (a clean check prints nothing)."""
    errors = sum(d.severity == "error" for d in diags)
    warnings = len(diags) - errors
    files = len({d.file for d in diags})
    if not diags:
        return ""
    parts = []
    if errors:
        parts.append(_plural(errors, "error"))
    if warnings:
        parts.append(_plural(warnings, "warning"))
    return (f"Found {' and '.join(parts)} in {_plural(files, 'file')} "
            f"({checked} checked).")
