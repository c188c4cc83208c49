"""Text from corpora cannot steer the reader: report Markdown, terminal output (defect 13)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core import cli
from core.importing import import_paths
from core.plain import markdown_text, terminal_safe
from core.replay.profiles import profile_by_name
from core.replaying import materialise_expected_rules, run_replay
from core.report import build_report, report_markdown
from core.store.engine import open_store

EVIL = "team\n# Injected heading\n[click](javascript:alert(1)) ![x](http://evil.example/i.png) <b>b</b> a|b"


def _corpus(root: Path, name: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    records = []
    for i, success in enumerate((False, False, True)):
        records.append(json.dumps({
            "trajectory_id": f"T-{i}", "timestamp": "2026-09-01T00:00:00Z", "task": f"push the branch {i}",
            "steps": [{"step_number": 1, "tool": "bash", "input": "git push", "output": None, "error": "rejected"}],
            "success": success, "domain": "git", "failure_class": "git/push/rejected",
            "expected_rule": "when a push is rejected, fetch and rebase first",
        }))
    (folder / "a.jsonl").write_text("\n".join(records) + "\n")
    return root


def test_a_folder_name_cannot_inject_markdown_into_the_report(tmp_path: Path, store_location: Path | str) -> None:
    markdown_it = pytest.importorskip("markdown_it")
    store = open_store(store_location)  # on each back end
    import_paths(store, [_corpus(tmp_path / "root", EVIL)])
    materialise_expected_rules(store)
    run_replay(store, profile_by_name("workbench").with_(semantic=False), scope="test")
    text = report_markdown(build_report(store, None))
    store.close()
    html = markdown_it.MarkdownIt("commonmark").enable("table").render(text)
    assert "<a " not in html and "<img" not in html and "<b>" not in html
    assert "Injected heading</h1>" not in html and "Injected heading</h2>" not in html
    assert "Injected heading" in html  # shown, as text


def test_markdown_text_escapes_every_markup_character() -> None:
    assert markdown_text("[a](b)") == "\\[a\\]\\(b\\)"
    assert markdown_text("x\n# h") == "x\\x0a\\# h"
    assert markdown_text("\u202e") == "\\<U\\+202E\\>"


def test_terminal_output_shows_escape_sequences_instead_of_running_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = "evil\x1b]0;pwned\x07\x1b[2J\u202eexe.txt"
    store_path = tmp_path / "s.sqlite"
    store = open_store(store_path)
    import_paths(store, [_corpus(tmp_path / "root", name)])
    store.close()
    assert cli.main(["corpora", "--store", str(store_path)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "evil\\x1b]0;pwned\\x07\\x1b[2J<U+202E>exe.txt" in out


def test_terminal_safe_keeps_one_line_and_visible_controls() -> None:
    assert terminal_safe("a\nb\rc\x00") == "a\\nb\\x0dc\\x00"
    assert terminal_safe("a\nb", keep_newlines=True) == "a\nb"
