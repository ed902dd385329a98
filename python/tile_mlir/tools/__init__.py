"""Command-line tools (tile-opt, tile-run)."""
