"""Write a large, realistic CauterRule corpus by resampling and perturbing the shared one.

    python benchmarks/make_scale_corpus.py N_TRAJECTORIES N_RULES --seed S [--out DIR] [--source ROOT]

Trajectories: each is a record of the shared corpus drawn uniformly at random (so domains,
failure classes, step counts, error texts, successes and recovered runs keep their real
proportions), given a new id and perturbed the way real runs differ: numbers, paths and
ports change, some words are swapped for the paraphrases below, and a run tag is added to
the task. Each output file sits in the same corpus directory as its source record, so
per-corpus thresholds and domain pools behave as on the real corpus.

Rules: ``N_RULES`` YAML rules whose trigger is an ``expected_rule`` sentence of a generated
record (paraphrased), with that record as the source trajectory, as the golden rules are.

Deterministic: the same arguments write byte-identical files.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SOURCE = ROOT.parent / "shared" / "corpora" / "cauterule"
PER_FILE = 5_000

PARAPHRASE = {
    "fails": "errors out", "failed": "broke", "failing": "erroring", "error": "failure", "install": "add",
    "missing": "absent", "run": "execute", "rejected": "refused", "timeout": "time-out", "retry": "try again",
    "before": "prior to", "check": "verify", "update": "refresh", "remove": "delete", "use": "employ",
    "cannot": "can not", "unable": "not able", "denied": "refused", "conflict": "clash", "command": "cmd",
}
_WORD = re.compile(r"[A-Za-z][A-Za-z-]+")
_NUMBER = re.compile(r"\d+")


def load_records(source: Path) -> list[tuple[str, dict[str, Any]]]:
    """(corpus directory relative to the source, record) for every parseable line."""
    out: list[tuple[str, dict[str, Any]]] = []
    for path in sorted(source.rglob("*.jsonl")):
        corpus = path.parent.relative_to(source).as_posix()
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and record.get("trajectory_id"):
                out.append((corpus, record))
    return out


def paraphrase(text: str, rng: random.Random, rate: float) -> str:
    def swap(match: re.Match[str]) -> str:
        word = match.group(0)
        other = PARAPHRASE.get(word.lower())
        return other if other is not None and rng.random() < rate else word

    return _WORD.sub(swap, text)


def perturb(text: str, rng: random.Random) -> str:
    text = _NUMBER.sub(lambda m: str(rng.randrange(1, 10 ** max(1, len(m.group(0))))), text)
    return paraphrase(text, rng, 0.25)


def perturb_record(record: dict[str, Any], index: int, rng: random.Random) -> dict[str, Any]:
    new = json.loads(json.dumps(record))
    tid = f"{record['trajectory_id']}~{index:07d}"
    new["trajectory_id"] = tid
    if "id" in new:
        new["id"] = tid
    new["task"] = f"{perturb(str(record.get('task') or ''), rng)} (run {rng.randrange(10**6):06d})"
    for step in new.get("steps") or []:
        if not isinstance(step, dict):
            continue
        for key in ("input", "output", "error"):
            if isinstance(step.get(key), str) and step[key]:
                step[key] = perturb(step[key], rng)
    return new


def rule_yaml(rule_id: str, trigger: str, source_id: str) -> str:
    return (
        f"id: {rule_id}\n"
        "when:\n"
        f"  trigger: {json.dumps(trigger)}\n"
        "do:\n"
        f"  directive: {json.dumps(trigger)}\n"
        "confidence: 0.9\n"
        "provenance:\n"
        f"  source_trajectory: {json.dumps(source_id)}\n"
        "  extracted_by: make_scale_corpus\n"
        "  extract_timestamp: '2026-09-07T20:50:09+00:00'\n"
        "  extraction_pass: 1\n"
        "status: active\n"
        "promoted_at: '2026-09-07T20:50:09+00:00'\n"
    )


class _CorpusWriter:
    """Writes each corpus's lines as they are generated, ``PER_FILE`` to a file, in the order
    they come: the same files as collecting every line first, without holding 10^6 records."""

    def __init__(self, out: Path, seed: int) -> None:
        self.out, self.seed = out, seed
        self.lines: dict[str, int] = defaultdict(int)
        self.handles: dict[str, Any] = {}

    def write(self, corpus: str, line: str) -> None:
        count = self.lines[corpus]
        if count % PER_FILE == 0:
            if corpus in self.handles:
                self.handles[corpus].close()
            folder = self.out / corpus
            folder.mkdir(parents=True, exist_ok=True)
            self.handles[corpus] = (folder / f"scale-{self.seed}-{count // PER_FILE:03d}.jsonl").open(
                "w", encoding="utf-8", newline="\n")
        self.handles[corpus].write(line + "\n")
        self.lines[corpus] = count + 1

    def close(self) -> int:
        for handle in self.handles.values():
            handle.close()
        return sum(self.lines.values())


def generate(n_traj: int, n_rules: int, seed: int, out: Path, source: Path) -> tuple[int, int]:
    records = load_records(source)
    if not records:
        raise SystemExit(f"error: no JSONL records under {source}")
    rng = random.Random(seed)
    writer = _CorpusWriter(out, seed)
    with_rule: list[tuple[str, str]] = []  # (sentence, trajectory id)
    try:
        for i in range(n_traj):
            corpus, record = records[rng.randrange(len(records))]
            new = perturb_record(record, i, rng)
            writer.write(corpus, json.dumps(new, ensure_ascii=False, sort_keys=True))
            sentence = str(record.get("expected_rule") or "").strip()
            if sentence:
                with_rule.append((sentence, new["trajectory_id"]))
    finally:
        written = writer.close()
    rules_dir = out / "rules"
    rules_dir.mkdir(parents=True, exist_ok=True)
    if not with_rule and n_rules:
        raise SystemExit("error: no generated record has an expected_rule; raise N_TRAJECTORIES")
    for k in range(n_rules):
        sentence, source_id = with_rule[rng.randrange(len(with_rule))]
        (rules_dir / f"R-{k:05d}.yaml").write_text(
            rule_yaml(f"R-{k:05d}", paraphrase(sentence, rng, 0.3), source_id), encoding="utf-8"
        )
    return written, n_rules


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n_trajectories", type=int)
    ap.add_argument("n_rules", type=int)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=None, help="output folder (default: ./scale-N-R-sS)")
    ap.add_argument("--source", type=Path, default=DEFAULT_SOURCE, help="the shared CauterRule corpus")
    args = ap.parse_args(argv)
    if args.n_trajectories < 1 or args.n_rules < 0:
        print("error: N_TRAJECTORIES must be >= 1 and N_RULES >= 0", file=sys.stderr)
        return 2
    out = args.out or Path(f"scale-{args.n_trajectories}-{args.n_rules}-s{args.seed}")
    n, r = generate(args.n_trajectories, args.n_rules, args.seed, out, args.source)
    print(f"wrote {n} trajectories and {r} rules under {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
