"""``python -m jar_core.cli``: the jar-retrieval command."""
import sys

from jar_core.cli.main import main

sys.exit(main())
