"""`python -m cwnd` is the `cwnd` command."""

import sys

from cwnd.cli import main

sys.exit(main())
