"""``python -m contextfold``: the same command line as ``contextfold`` (:mod:`contextfold.cli`)."""

import sys

from contextfold.cli import main

sys.exit(main())
