"""Lowerings of tile ops: copy_async variants (chosen by the dispatch registry) and the rest."""
