"""Measure start-up: time from launch to a usable window, to the model loaded, and memory.

    python packaging/measure_startup.py --source            # python packaging/entry.py
    python packaging/measure_startup.py --app packaging/dist/cauterule-workbench/cauterule-gui
    options: --runs N (default 3), --no-model (point the model setting at nothing), --json

Each run starts the app offscreen with an empty HOME. Run 1 uses a fresh store (first run:
the store starts empty: the demo lives in its own store now); later runs reopen that store.
``CAUTERULE_STARTUP_PROBE`` makes ``packaging/startup_probe.py`` record the moments; the app
quits by itself once the model is loaded. Launch is stamped just before the process starts.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def one_run(command: list[str], store: Path, home: Path, probe: Path, no_model: bool) -> dict:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8", "QT_QPA_PLATFORM": "offscreen",
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "CAUTERULE_STARTUP_PROBE": str(probe)}
    if no_model:
        env["CAUTERULE_WORKBENCH_MODEL"] = str(home / "no-model-here")
    probe.unlink(missing_ok=True)
    launched = time.time()
    done = subprocess.run([*command, "--store", str(store)], env=env, capture_output=True, text=True, timeout=600)
    ended = time.time()
    if not probe.exists():
        raise SystemExit(f"no probe output (exit {done.returncode}):\n{done.stdout}\n{done.stderr}")
    record = json.loads(probe.read_text(encoding="utf-8"))

    def since(key: str) -> float | None:
        return None if record.get(key) is None else round(record[key] - launched, 2)

    return {
        "exit": done.returncode,
        "window_usable_s": since("window_usable"),
        "model_ready_s": since("model_ready"),
        "process_s": round(ended - launched, 2),
        "rss_window_mb": record.get("memory_window", {}).get("VmRSS"),
        "rss_model_mb": record.get("memory_model", {}).get("VmRSS"),
        "peak_mb": (record.get("memory_model") or record.get("memory_window") or {}).get("VmHWM"),
        "helper_rss_mb": record.get("children_rss_model_mb"),
        "model_state": record.get("model_state"),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--source", action="store_true", help="run from source (python packaging/entry.py)")
    which.add_argument("--app", type=Path, help="the built executable")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-model", action="store_true", help="make the model unavailable")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    command = [sys.executable, str(HERE / "entry.py")] if args.source else [str(args.app.resolve())]
    results = []
    with tempfile.TemporaryDirectory(prefix="cauterule-startup-") as scratch:
        root = Path(scratch)
        (root / "home").mkdir()
        for number in range(1, args.runs + 1):
            result = one_run(command, root / "store.sqlite", root / "home", root / "probe.json", args.no_model)
            result["run"] = "first (fresh store)" if number == 1 else f"again #{number - 1}"
            results.append(result)
            if not args.json:
                print(f"{result['run']:<20} window {result['window_usable_s']} s, model {result['model_ready_s']} s, "
                      f"RSS {result['rss_window_mb']} -> {result['rss_model_mb']} MB (peak {result['peak_mb']}), "
                      f"helper {result['helper_rss_mb']} MB, "
                      f"exit {result['exit']}; {result['model_state']}", flush=True)
    later = results[1:] or results

    def median(key: str) -> float | None:
        values = [r[key] for r in later if r[key] is not None]
        return round(statistics.median(values), 2) if values else None

    summary = {
        "command": command, "no_model": args.no_model, "runs": results,
        "median_window_usable_s": median("window_usable_s"),
        "median_model_ready_s": median("model_ready_s"),
        "median_rss_window_mb": median("rss_window_mb"),
        "median_rss_model_mb": median("rss_model_mb"),
        "median_helper_rss_mb": median("helper_rss_mb"),
    }
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"median over later runs: window {summary['median_window_usable_s']} s, "
              f"model {summary['median_model_ready_s']} s, RSS {summary['median_rss_window_mb']} -> "
              f"{summary['median_rss_model_mb']} MB, helper {summary['median_helper_rss_mb']} MB")
    return 0 if all(r["exit"] == 0 for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
