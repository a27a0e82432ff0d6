"""What every model provider speaks: a provider-neutral conversation in, one model turn out.

The loop never sees a vendor's wire format. A provider turns `Message`s and `ToolSpec`s into its
own request and its answer into a `ModelResponse`. Whatever it must replay verbatim on the next
request (Gemini's thought signatures, for instance) it keeps in `ModelResponse.raw`, which the loop
stores on the assistant `Message` and hands back untouched.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable


@dataclass(frozen=True)
class ToolSpec:
    """A tool as declared to a model: its exact name, what it is for, and a JSON schema of its arguments."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass(frozen=True)
class ToolCall:
    """One function call the model asked for; `id` is the provider's call id where it has one."""

    name: str
    arguments: dict[str, Any]
    id: str | None = None
    argument_error: str | None = None  # the arguments could not be decoded (e.g. invalid JSON); say so to the model


@dataclass(frozen=True)
class Usage:
    """Tokens of one model call. `thinking` is included in `output` where the vendor counts it apart."""

    input: int = 0
    output: int = 0
    thinking: int = 0

    @property
    def total(self) -> int:
        return self.input + self.output + self.thinking

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.input + other.input, self.output + other.output, self.thinking + other.thinking)

    def to_dict(self) -> dict[str, int]:
        return {"input": self.input, "output": self.output, "thinking": self.thinking, "total": self.total}


@dataclass(frozen=True)
class ModelResponse:
    """One model turn: the visible reasoning text, any thought summary, the tool calls, the tokens."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    thoughts: str = ""
    usage: Usage = Usage()
    model: str = ""
    finish_reason: str | None = None
    raw: Any = None  # provider-native content to replay in the next request


@dataclass
class Message:
    """One entry of the conversation, in the loop's neutral form.

    user: `content`; assistant: `content` plus `tool_calls` (and `raw`); tool: the JSON `result` of
    the call `tool_call_id` named `name`.
    """

    role: Literal["user", "assistant", "tool"]
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None
    result: dict[str, Any] | None = None
    raw: Any = None
    meta: dict[str, Any] = field(default_factory=dict)


class ProviderError(Exception):
    """A model call failed. `retryable` (429, 5xx, connection trouble) lets the loop back off and retry."""

    def __init__(self, message: str, *, status: int | None = None, retry_after: float | None = None,
                 retryable: bool | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.retry_after = retry_after
        self.retryable = retryable if retryable is not None else (status is not None and (status == 429 or status >= 500))


@runtime_checkable
class Provider(Protocol):
    """A chat model with native function calling."""

    name: str  # gemini | openai | scripted
    model: str

    def complete(self, system: str, messages: list[Message], tools: list[ToolSpec], *,
                 timeout_s: float | None = None) -> ModelResponse:
        """One request: the whole conversation so far in, the model's next turn out; raises ProviderError."""
        ...


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or an HTTP date), or None."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    import datetime as dt
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return max(0.0, (when - dt.datetime.now(dt.UTC)).total_seconds())
