"""`python -m digest_tui` runs the same entry point as the `digest-tui` script."""

from digest_tui.cli import main

raise SystemExit(main())
