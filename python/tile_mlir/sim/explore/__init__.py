"""Schedule exploration for tile-sim: run a launch under many legal schedules (PCT priorities with
change points at synchronisation operations, asynchronous completions delivered late and
reordered) and report the first that deadlocks, races or computes other bytes, minimised and
replayable from (seed, index) (docs/emulator.md, schedule exploration)."""

from .driver import ExploreResult, Failure, explore_launch, replay, replay_launch
from .policy import PriorityPolicy, Schedule, draw
from .systematic import replay_run, systematic_launch

__all__ = ["ExploreResult", "Failure", "PriorityPolicy", "Schedule", "draw", "explore_launch",
           "replay", "replay_launch", "replay_run", "systematic_launch"]
