"""walk_import_root: deterministic listing, corpus names from folders, hidden folders skipped."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.corpus.walk import walk_import_root


def make(root: Path, *relative: str) -> None:
    for rel in relative:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x", encoding="utf-8")


def test_corpus_name_is_the_folder_path_relative_to_the_root(tmp_path: Path) -> None:
    root = tmp_path / "cauterule"
    make(
        root,
        "field-test/corpus/curated/nearmiss/N-1.jsonl",
        "field-test/corpus/catalog.yaml",
        "corpus/public/golden/G-1-a.yml",
        "corpus/public/golden/golden-manifest.json",
        "README.md",
    )
    listing = [(f.rel_path, f.corpus_name, f.kind) for f in walk_import_root(root)]
    assert listing == [
        ("README.md", "cauterule", "other"),
        ("corpus/public/golden/G-1-a.yml", "corpus/public/golden", "rule_yaml"),
        ("corpus/public/golden/golden-manifest.json", "corpus/public/golden", "other"),
        ("field-test/corpus/catalog.yaml", "field-test/corpus", "rule_yaml"),
        ("field-test/corpus/curated/nearmiss/N-1.jsonl", "field-test/corpus/curated/nearmiss", "trajectories"),
    ]


def test_paths_are_absolute_and_point_at_the_files(tmp_path: Path) -> None:
    make(tmp_path / "r", "a/b.jsonl")
    [found] = walk_import_root(tmp_path / "r")
    assert found.abs_path.is_absolute() and found.abs_path == (tmp_path / "r" / "a" / "b.jsonl").absolute()


def test_hidden_folders_and_files_are_skipped(tmp_path: Path) -> None:
    make(tmp_path, "rules/R-1.yaml", "rules/.quarantine/R-2.yaml", ".git/config.yaml", "rules/.R-3.yaml.swp")
    assert [f.rel_path for f in walk_import_root(tmp_path)] == ["rules/R-1.yaml"]


def test_order_is_sorted_by_path_segments_so_folders_stay_together(tmp_path: Path) -> None:
    make(tmp_path, "b/2.jsonl", "a/z.jsonl", "a.jsonl", "a/b/1.jsonl", "B.jsonl")
    expected = ["B.jsonl", "a/b/1.jsonl", "a/z.jsonl", "a.jsonl", "b/2.jsonl"]
    assert [f.rel_path for f in walk_import_root(tmp_path)] == expected
    assert [f.rel_path for f in walk_import_root(tmp_path)] == expected  # and again: deterministic


def test_a_single_file_takes_its_parent_folder_name(tmp_path: Path) -> None:
    make(tmp_path, "nearmiss/N-1.JSONL")
    [found] = walk_import_root(tmp_path / "nearmiss" / "N-1.JSONL")
    assert (found.rel_path, found.corpus_name, found.kind) == ("N-1.JSONL", "nearmiss", "trajectories")


def test_missing_root_raises(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        walk_import_root(tmp_path / "absent")
