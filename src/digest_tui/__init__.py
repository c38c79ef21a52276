"""digest-tui: a terminal reader of ML-systems paper digests."""

__version__ = "0.1.0"
