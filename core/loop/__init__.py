"""The rest of the CauterRule loop: the pre-extraction gate, where a rule fires at injection,
source trust (taint), cross-session repeat failures, and writing candidates (no Qt)."""
