"""A provider that plays a script: tests (and the docs' example trace) run the real loop without a model.

The script is a list whose items are played one per model call: a `ModelResponse` (build one with
`call(...)` or `say(...)`), an exception to raise (a `ProviderError(status=429)` to test backoff), or
a function of the conversation returning either. Or the script is one such function, called every
turn. Token counts, when a step gives none, are estimated (four characters a token) so traces look
like real ones and stay deterministic.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from .base import Message, ModelResponse, ProviderError, ToolCall, ToolSpec, Usage

Step = ModelResponse | BaseException | Callable[[list[Message]], ModelResponse | BaseException]


def call(tool: str, reasoning: str = "", *, usage: Usage | None = None, **arguments: Any) -> ModelResponse:
    """A turn with reasoning text and one call: `call("execute", "Done.", sql="SELECT 1")`."""
    return ModelResponse(text=reasoning, tool_calls=(ToolCall(tool, arguments, id=None),), usage=usage or Usage())


def say(text: str, *, usage: Usage | None = None) -> ModelResponse:
    """A turn with text and no call (the loop must remind the model)."""
    return ModelResponse(text=text, usage=usage or Usage())


def _estimate(chars: int) -> int:
    return max(1, chars // 4)


class ScriptedProvider:
    name = "scripted"

    def __init__(self, script: Sequence[Step] | Callable[[list[Message]], ModelResponse], model: str = "scripted") -> None:
        self.model = model
        self._function = script if callable(script) else None
        self._steps = list(script) if not callable(script) else []
        self.requests: list[dict[str, Any]] = []  # what each call received (system, messages, tools)

    @property
    def remaining(self) -> int:
        return len(self._steps)

    def complete(self, system: str, messages: list[Message], tools: list[ToolSpec], *,
                 timeout_s: float | None = None) -> ModelResponse:
        self.requests.append({"system": system, "messages": list(messages), "tools": [t.name for t in tools],
                              "timeout_s": timeout_s})
        if self._function is not None:
            step: Any = self._function
        elif self._steps:
            step = self._steps.pop(0)
        else:
            raise ProviderError("the script has no more responses", retryable=False)
        if callable(step) and not isinstance(step, (ModelResponse, BaseException)):
            step = step(list(messages))
        if isinstance(step, BaseException):
            raise step
        if not isinstance(step, ModelResponse):
            raise TypeError(f"a script step must be a ModelResponse, an exception or a function; got {type(step).__name__}")
        if step.usage == Usage():
            sent = len(system) + sum(len(m.content) + len(json.dumps(m.result or {}, default=str)) for m in messages)
            said = len(step.text) + sum(len(json.dumps(c.arguments, default=str)) for c in step.tool_calls)
            step = ModelResponse(step.text, step.tool_calls, step.thoughts, Usage(_estimate(sent), _estimate(said)),
                                 step.model or self.model, step.finish_reason, step.raw)
        return step
