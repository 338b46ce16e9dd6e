"""`python -m cwnd` is the `cwnd` command."""

from cwnd.cli import entry

entry()
