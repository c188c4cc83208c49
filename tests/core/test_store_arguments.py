"""Every command names its store the same way: a file path (SQLite) or a ``postgresql://`` URL."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.cli.commands import build_parser
from core.store.engine import StoreUrl, store_location

STORE_DESTS = {"store", "source", "destination", "location"}


def _store_arguments(parser: argparse.ArgumentParser, path: str = "") -> Iterator[tuple[str, argparse.Action]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _store_arguments(sub, f"{path} {name}".strip())
        elif action.dest in STORE_DESTS:
            yield path, action


def test_every_commands_store_argument_is_the_one_shared_type() -> None:
    found = list(_store_arguments(build_parser()))
    assert len(found) > 10  # the walk reached the subcommands
    wrong = [f"{path} {action.option_strings or action.dest}" for path, action in found
             if action.type is not store_location]
    assert wrong == []


def test_ruler_accepts_a_postgresql_url() -> None:
    args = build_parser().parse_args(["ruler", "--store", "postgresql://ana@/team?host=/run/postgresql"])
    assert isinstance(args.store, StoreUrl)
    assert str(args.store) == "postgresql://ana@/team?host=/run/postgresql"


def test_ruler_still_accepts_a_file_path(tmp_path: Path) -> None:
    args = build_parser().parse_args(["ruler", "--store", str(tmp_path / "w.sqlite")])
    assert args.store == tmp_path / "w.sqlite"


def test_a_url_of_another_database_is_refused_in_one_line_without_its_password(
        tmp_path: Path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    from core.cli import main

    monkeypatch.chdir(tmp_path)
    try:
        code = main(["report", "--store", "mysql://user:s3cret@/x"])
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    err = capsys.readouterr().err
    assert code == 2
    assert "not a store" in err and "s3cret" not in err
    assert list(tmp_path.iterdir()) == []  # no folder named after the URL


def test_a_malformed_postgresql_url_is_refused_without_its_password(capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit):
        build_parser().parse_args(["report", "--store", "postgresql://ana:s3cret@db:notaport/team"])
    err = capsys.readouterr().err
    assert "not a valid postgresql:// URL" in err and "s3cret" not in err


def test_a_read_only_command_never_creates_a_mistyped_store(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from core.cli import main

    typo = tmp_path / "stroe.sqlite"
    for command in (["report"], ["promotions"], ["gate"], ["corpora"]):
        assert main([*command, "--store", str(typo)]) != 0
        assert f"no store at {typo}" in capsys.readouterr().err
    assert not typo.exists()


def test_import_still_starts_a_new_store(tmp_path: Path, demo_corpus: Path) -> None:
    from core.cli import main

    assert main(["import", str(demo_corpus), "--store", str(tmp_path / "new.sqlite")]) == 0
    assert (tmp_path / "new.sqlite").is_file()


def test_team_add_reviewer_connects_with_the_urls_password(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from core.cli import main
    from core.team import roles

    seen: list[str] = []
    monkeypatch.setattr(roles, "add_reviewer", lambda url, *a, **k: seen.append(url) or True)
    assert main(["team", "add-reviewer", "nora", "--store", "postgresql://admin:s3cret@/team?host=/run/pg"]) == 0
    assert seen == ["postgresql://admin:s3cret@/team?host=/run/pg"]


def test_a_store_path_ending_in_a_separator_names_a_folder_and_is_refused(
        tmp_path: Path, demo_corpus: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from core.cli import main

    folder = f"{tmp_path / 'team'}/"
    with pytest.raises(SystemExit):
        main(["import", str(demo_corpus), "--store", folder])
    assert "names a folder, not a store file" in capsys.readouterr().err
    assert not (tmp_path / "team").exists()  # neither a folder nor a file named after it


def test_an_empty_store_argument_is_refused(capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit):
        build_parser().parse_args(["report", "--store", " "])
    assert "the store is empty" in capsys.readouterr().err
