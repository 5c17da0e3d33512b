"""The pure ExploreToM story DSL: state, actions, tracker, questions, rendering and parsing.

No I/O, no models, no Inspect imports: everything here is a deterministic function of its inputs.
"""

from tombench.dsl.context import DEFAULT_CONTEXT, Context, ContextError, StateChange

__all__ = ["Context", "ContextError", "StateChange", "DEFAULT_CONTEXT"]
