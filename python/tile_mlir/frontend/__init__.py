"""The user's side of the boundary: the source a caller gives, the checks text must pass before
MLIR parses it, contexts, and the one path by which files are read and written on a user's behalf."""
