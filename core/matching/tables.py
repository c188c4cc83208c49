"""Data tables of the matcher.

These reproduce the tables of ``cauterule.replay.matcher`` 0.3.1 (stop words, alias map,
distinctive phrases, generic words, tool domains). They are facts about the reference's
behaviour, restated here so the 0.3.1 profile scores exactly as the reference does; the
parity tests in ``tests/external/test_matcher_parity.py`` check them against the package.
Do not "fix" entries here: quirks such as the alias key ``non-fast-forward`` (which can
never be found in a normalised trigger) or the mixed-case phrase ``npm ERR`` (which can never
be found in a lowercased trigger) are part of what 0.3.1 does.
"""

from __future__ import annotations

import re
from types import MappingProxyType
from typing import Mapping

# 101 English function words dropped from content tokens (0.3.1's list, same words).
STOP_WORDS: frozenset[str] = frozenset(
    """
    a an the and or but if then else when what which who whom this that these those
    am is are was were be been being have has had having do does did doing
    will would shall should can could may might must ought
    to of in for on by with about into through during before after above below
    up down out off over under again further once here there
    all any both each few more most other some such only own same so than too very just also
    not no nor as at from it its you your we they
    """.split()
)

# One-word triggers that are too broad to match on their own (#517); also the words a
# structured signature must go beyond to count (#725). Unstemmed, as in 0.3.1.
GENERIC_WORDS: frozenset[str] = frozenset(
    {"error", "fail", "failed", "failure", "warning", "exception", "timeout", "bug"}
)

# A trigger that is just a step label ("step_1", "step 2") is degenerate.
DEGENERATE_TRIGGER = re.compile(r"^step[_\s]*\d+$", re.IGNORECASE)

# Paraphrase map: key found (raw substring) in the normalised trigger -> phrases whose
# content tokens count at half weight, and whose verbatim presence floors the score.
_ALIAS_SOURCE: dict[str, tuple[str, ...]] = {
    "non-fast-forward": (
        "remote contains work", "updates were rejected", "fetch first", "pull first",
        "behind remote",
    ),
    "non fast forward": (
        "remote contains work", "updates were rejected", "fetch first", "pull first",
        "behind remote",
    ),
    "push rejected": ("updates were rejected", "non-fast-forward"),
    "merge conflict": ("conflicting changes", "automatic merge failed", "merge failed"),
    "import error": ("no module named", "modulenotfounderror"),
    "module not found": ("no module named", "modulenotfounderror"),
    "connection refused": ("could not connect", "network unreachable", "connection reset"),
    "out of memory": ("oomkilled", "memory exhausted", "killed"),
    "permission denied": ("operation not permitted", "access denied", "eacces"),
    "file not found": ("no such file", "enoent", "does not exist"),
    "timeout": ("timed out", "deadline exceeded", "took too long"),
    "version conflict": ("dependency resolver conflict", "dependency conflict"),
    "package not found": ("unable to find ", "no package matching", "libpq-dev not found"),
    "state lock": ("conditionalcheckfailedexception", "state locked", "error acquiring"),
    "rate limit": ("429", "too many requests", "rate limit exceeded"),
    "assertion error": ("assertionerror", "assertion failed"),
    "kubectl apply": ("no matches for kind", "unable to recognize"),
    "crd not found": ("no matches for kind", "unrecognized resource"),
    "not found": ("no matches for kind", "does not exist", "not found"),
    "deploy timeout": ("deployment exceeded", "timed out", "timeout"),
    "health check": ("health check", "rollout timed out", "timed out"),
    "times out": ("timeout", "timed out", "deadline exceeded"),
    "ssl certificate": ("ssl", "certificate", "verification", "cert"),
    "certificate verification": ("ssl", "certificate", "cert"),
    "dns resolution": ("nxdomain", "dns", "name resolution", "resolve"),
    "nxdomain": ("dns", "domain not found", "name resolution"),
    "npm build": ("npm", "build", "webpack", "module not found"),
    "npm install": ("npm", "install", "package", "dependency"),
    "network connection": ("connection", "network", "unreachable", "reset"),
    "cache miss": ("cache", "not found", "missing", "restore"),
    "browser alert": ("alert", "unexpected", "dismiss", "popup"),
    "frame not found": ("no such frame", "frame", "switch", "iframe"),
    "delete branch": ("checkout", "branch", "checked out", "delete"),
    "flaky": ("intermittent", "retry", "transient", "intermittent failure"),
}
ALIASES: Mapping[str, frozenset[str]] = MappingProxyType(
    {key: frozenset(phrases) for key, phrases in _ALIAS_SOURCE.items()}
)

# Error phrases that floor a long trigger at 0.70 when they also appear in the trajectory.
# Checked against the *lowercased raw* trigger, so "npm ERR" never fires (0.3.1 quirk).
DISTINCTIVE_PHRASES: frozenset[str] = frozenset(
    {
        "non-fast-forward", "merge conflict", "permission denied", "connection refused",
        "module not found", "modulenotfounderror", "assertion error", "assertionerror",
        "type error", "typeerror", "syntax error", "syntaxerror", "import error",
        "importerror", "key error", "keyerror", "value error", "valueerror", "index error",
        "indexerror", "attribute error", "attributeerror", "file not found",
        "filenotfounderror", "out of memory", "oomkilled", "rate limit",
        "rate limit exceeded", "deadline exceeded", "state lock", "element not found",
        "nosuchelementexception", "stale element", "staleelementreferenceexception",
        "timeout", "timed out", "connection timeout", "access denied", "not found",
        "notfound", "conflict", "build failed", "test failed", "deploy failed",
        "no such file", "directory not empty", "unknown host", "could not resolve",
        "unable to find", "unable to connect", "no matches for kind", "cr not found",
        "resource not found", "not authorized", "exit code", "non-zero exit",
        "process exited", "ssl certificate", "certificate verification", "ssl verification",
        "nxdomain", "dns resolution", "name resolution", "npm build", "npm install",
        "npm ERR", "network connection", "network unreachable", "cache miss",
        "cache not found", "browser alert", "unexpected alert", "no such frame",
        "frame not found", "switch to frame", "checkout", "delete branch",
        "branch checked out", "flaky", "intermittent", "intermittent failure",
    }
)

# Tool domains recognised in a trigger, in priority order (the first found wins, #487).
KNOWN_DOMAINS: tuple[str, ...] = (
    "git", "docker", "pip", "pytest", "kubectl", "terraform", "api", "browser", "python",
    "ssh", "npm", "deploy", "ci", "test",
)

# Tool/domain token -> group; related tools share a group (#694/#691).
DOMAIN_GROUPS: Mapping[str, str] = MappingProxyType(
    {
        "git": "vcs",
        "docker": "containers",
        "pip": "python",
        "pytest": "python",
        "python": "python",
        "kubectl": "kubernetes",
        "k8s": "kubernetes",
        "kubernetes": "kubernetes",
        "terraform": "iac",
        "api": "api",
        "browser": "browser",
        "selenium": "browser",
        "ssh": "ssh",
        "npm": "node",
        "deploy": "ci",
        "ci": "ci",
        "test": "testing",
    }
)
