"""Reading and writing CauterRule corpus files: pure Python, no store, no Qt.

Modules: ``jsonl`` (trajectory JSONL reader, never raises), ``validation`` (the 0.3.1 model's
acceptance rules, with field paths and reasons), ``rules`` (standing / candidate rule YAML),
``walk`` (files under an import root and their corpus names), ``roles`` (corpus roles) and
``writer`` (JSONL output). Import the submodules directly; this package imports nothing so
that loading one reader stays cheap.
"""
