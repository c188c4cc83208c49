"""``python -m core.cli ARGS``: the same as ``cauterule-workbench ARGS``."""

import sys

from core.cli.commands import main

if __name__ == "__main__":  # importing the module (the layering test imports every one) runs nothing
    sys.exit(main())
