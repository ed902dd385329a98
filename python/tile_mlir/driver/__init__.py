"""The compiler driver: compile() and its stages, passes, pipelines and the PTX/cubin assembly."""
