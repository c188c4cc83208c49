"""core.corpus against the shared CauterRule corpus, with cauterule 0.3.1 as the oracle."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from core.corpus.jsonl import TrajectoryFileResult, read_trajectory_file
from core.corpus.roles import infer_corpus_role
from core.corpus.rules import RuleFileResult, read_rule_file
from core.corpus.validation import validate_trajectory
from core.corpus.walk import CorpusFile, walk_import_root
from core.corpus.writer import write_jsonl

pytestmark = pytest.mark.external


@pytest.fixture(scope="module")
def corpus_files(shared_corpus: Path) -> list[CorpusFile]:
    return walk_import_root(shared_corpus)


@pytest.fixture(scope="module")
def trajectory_results(corpus_files: list[CorpusFile]) -> dict[str, tuple[CorpusFile, TrajectoryFileResult]]:
    return {
        f.rel_path: (f, read_trajectory_file(f.abs_path, f.rel_path)) for f in corpus_files if f.kind == "trajectories"
    }


@pytest.fixture(scope="module")
def rule_results(corpus_files: list[CorpusFile]) -> dict[str, RuleFileResult]:
    return {f.rel_path: read_rule_file(f.abs_path, f.rel_path) for f in corpus_files if f.kind == "rule_yaml"}


def test_every_jsonl_reads_without_issues_358_records(trajectory_results) -> None:  # noqa: ANN001
    issues = [issue for _, result in trajectory_results.values() for issue in result.issues]
    assert issues == []
    assert sum(len(result.records) for _, result in trajectory_results.values()) == 358


def test_every_record_the_reference_loads_is_read_by_us(trajectory_results) -> None:  # noqa: ANN001
    from cauterule.serialization.trajectory_jsonl import load_trajectories

    theirs = Counter((rel, t.id) for rel, (f, _) in trajectory_results.items()
                     for t in load_trajectories(f.abs_path, strict=True))
    ours = Counter((rel, r.trajectory_id) for rel, (_, result) in trajectory_results.items() for r in result.records)
    assert ours == theirs


def test_validation_agrees_with_the_reference_model_on_every_record(trajectory_results) -> None:  # noqa: ANN001
    from cauterule.models.trajectory import Trajectory

    for _, result in trajectory_results.values():
        for record in result.records:
            problems = validate_trajectory(record.data)
            assert not [p for p in problems if p.is_error]
            Trajectory.from_dict(record.data)  # the oracle accepts it too


def test_records_round_trip_through_our_writer_and_both_readers(trajectory_results, tmp_path: Path) -> None:  # noqa: ANN001
    from cauterule.models.trajectory import Trajectory
    from cauterule.serialization.trajectory_jsonl import load_trajectories

    originals = [
        json.loads(record.raw_text) for _, result in trajectory_results.values() for record in result.records
    ]
    path = tmp_path / "all.jsonl"
    write_jsonl(originals, path)
    ours = read_trajectory_file(path)
    assert ours.issues == []
    assert [record.data for record in ours.records] == originals
    theirs = list(load_trajectories(path, strict=True))
    assert [t.to_dict() for t in theirs] == [Trajectory.from_dict(o).to_dict() for o in originals]


def test_rule_yaml_files_24_rules_and_one_catalog(rule_results) -> None:  # noqa: ANN001
    assert [issue for result in rule_results.values() for issue in result.issues] == []
    kinds = Counter(result.kind for result in rule_results.values())
    assert kinds == {"standing": 22, "candidate": 2, "catalog": 1}
    golden = [r for rel, r in rule_results.items() if rel.startswith("corpus/public/golden/")]
    fixtures = [r for rel, r in rule_results.items() if rel.startswith("tests/fixtures/")]
    assert len(golden) == 20 and len(fixtures) == 4
    assert all(r.rule is not None for r in golden + fixtures)
    assert rule_results["field-test/corpus/catalog.yaml"].rule is None


def test_standing_rules_agree_with_the_reference_loader(shared_corpus: Path, rule_results) -> None:  # noqa: ANN001
    from cauterule.serialization.rule_yaml import load_rule_from_file

    for rel, result in rule_results.items():
        if result.kind == "standing":
            reference = load_rule_from_file(shared_corpus / rel)
            assert result.rule is not None
            assert (result.rule.rule_id, result.rule.trigger, result.rule.directive, result.rule.status) == (
                reference.id,
                reference.when.trigger,
                reference.do.directive,
                reference.status,
            )
            assert result.rule.context == reference.when.context


def test_corpus_roles(trajectory_results) -> None:  # noqa: ANN001
    outcomes: dict[str, list[str | None]] = defaultdict(list)
    for file, result in trajectory_results.values():
        outcomes[file.corpus_name].extend(record.expected_outcome for record in result.records)
    roles = {name: infer_corpus_role(name, values)[0] for name, values in outcomes.items()}
    for name, role in roles.items():
        if "/nearmiss" in name or "/adversarial/" in name:
            assert role == "rejection", name
    assert roles["field-test/corpus/curated/successes"] == "silence"
    assert roles["field-test/corpus/curated/failures/negative"] == "silence"
    assert roles["field-test/corpus/curated/failures/positive"] == "extraction"
    assert roles["corpus/public/golden"] == "extraction"
