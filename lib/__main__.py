"""`python -m lib`: the command line in lib/cli.py."""

from lib.cli import main

raise SystemExit(main())
