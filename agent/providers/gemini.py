"""Gemini through Google's `google-genai` SDK, with native function calling.

The three tools go out as function declarations; the model's `functionCall` parts come back as
ToolCalls, its text parts as the turn's reasoning and its `thought` parts as the thought summary.
The model's content is kept verbatim (`raw`) and replayed on the next request, because Gemini's
thinking models sign their function calls (`thoughtSignature`) and refuse a conversation that
drops the signatures. The SDK's own retries are off: the loop retries, honouring Retry-After.
"""

from __future__ import annotations

import re
from typing import Any

from .base import Message, ModelResponse, ProviderError, ToolCall, ToolSpec, Usage, parse_retry_after

try:  # an optional dependency: without it `make_provider` says which package to install
    from google import genai
    from google.genai import errors as genai_errors, types
except ImportError:  # pragma: no cover - exercised only without the package
    genai = None  # type: ignore[assignment]

_DURATION = re.compile(r"^\s*([0-9.]+)s\s*$")


def _transport_errors() -> tuple[type[BaseException], ...]:
    """Connection trouble of whichever httpx the SDK uses (httpx or its fork httpx2): retryable."""
    out: list[type[BaseException]] = []
    for module in ("httpx", "httpx2"):
        try:
            out.append(__import__(module).TransportError)
        except (ImportError, AttributeError):
            continue
    return tuple(out)


class GeminiProvider:
    name = "gemini"

    def __init__(self, *, api_key: str, model: str, temperature: float = 0.1, max_output_tokens: int = 8192,
                 thinking_level: str | None = None, thinking_budget: int | None = None, include_thoughts: bool = True,
                 tool_choice: str = "auto", base_url: str | None = None, client: Any = None) -> None:
        if genai is None:
            raise ImportError("google-genai")
        self.model = model
        self.temperature = temperature
        self.max_output_tokens = max_output_tokens
        self.thinking_level = thinking_level
        self.thinking_budget = thinking_budget
        self.include_thoughts = include_thoughts
        self.mode = types.FunctionCallingConfigMode.ANY if tool_choice.lower() in ("any", "required") \
            else types.FunctionCallingConfigMode.AUTO
        options = types.HttpOptions(base_url=base_url) if base_url else None
        self.client = client or genai.Client(api_key=api_key, http_options=options)
        self._transport = _transport_errors()

    # -- request ------------------------------------------------------------------------------
    def _config(self, system: str, tools: list[ToolSpec], timeout_s: float | None) -> Any:
        thinking = None
        if self.thinking_level or self.thinking_budget is not None or self.include_thoughts:
            thinking = types.ThinkingConfig(
                include_thoughts=self.include_thoughts or None,
                thinking_level=types.ThinkingLevel(self.thinking_level.upper()) if self.thinking_level else None,
                thinking_budget=self.thinking_budget,
            )
        return types.GenerateContentConfig(
            system_instruction=system,
            temperature=self.temperature,
            max_output_tokens=self.max_output_tokens,
            thinking_config=thinking,
            tools=[types.Tool(function_declarations=[
                types.FunctionDeclaration(name=t.name, description=t.description, parameters_json_schema=t.parameters)
                for t in tools])],
            tool_config=types.ToolConfig(function_calling_config=types.FunctionCallingConfig(mode=self.mode)),
            automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
            http_options=types.HttpOptions(timeout=int(timeout_s * 1000)) if timeout_s else None,
        )

    @staticmethod
    def contents(messages: list[Message]) -> list[Any]:
        """The conversation as Gemini contents; consecutive tool results share one user turn, as Gemini requires."""
        out: list[Any] = []
        for message in messages:
            if message.role == "tool":
                part = types.Part(function_response=types.FunctionResponse(
                    id=message.tool_call_id, name=message.name, response=message.result or {}))
                if out and out[-1].role == "user" and out[-1].parts and out[-1].parts[-1].function_response is not None:
                    out[-1].parts.append(part)
                else:
                    out.append(types.Content(role="user", parts=[part]))
            elif message.role == "assistant":
                if isinstance(message.raw, types.Content) and message.raw.parts:
                    out.append(message.raw)
                    continue
                parts = [types.Part(text=message.content)] if message.content else []
                parts += [types.Part(function_call=types.FunctionCall(id=c.id, name=c.name, args=c.arguments))
                          for c in message.tool_calls]
                if parts:  # an empty model turn (a malformed call) is dropped: Gemini refuses empty contents
                    out.append(types.Content(role="model", parts=parts))
            else:
                out.append(types.Content(role="user", parts=[types.Part(text=message.content)]))
        return out

    def complete(self, system: str, messages: list[Message], tools: list[ToolSpec], *,
                 timeout_s: float | None = None) -> ModelResponse:
        try:
            response = self.client.models.generate_content(model=self.model, contents=self.contents(messages),
                                                           config=self._config(system, tools, timeout_s))
        except genai_errors.APIError as err:
            raise ProviderError(f"Gemini answered {err.code} {err.status or ''}: {err.message or err}".replace("  ", " "),
                                status=err.code, retry_after=_retry_after(err)) from None
        except self._transport as err:
            raise ProviderError(f"cannot reach Gemini: {type(err).__name__}: {err}", retryable=True) from None
        return self.parse(response)

    # -- response -----------------------------------------------------------------------------
    def parse(self, response: Any) -> ModelResponse:
        candidates = response.candidates or []
        if not candidates or candidates[0].content is None:
            feedback = getattr(response, "prompt_feedback", None)
            reason = getattr(feedback, "block_reason", None)
            finish = candidates[0].finish_reason if candidates else None
            if reason:
                raise ProviderError(f"Gemini blocked the prompt ({reason})", retryable=False)
            return ModelResponse(finish_reason=str(getattr(finish, "value", finish) or "EMPTY"), usage=_usage(response),
                                 model=response.model_version or self.model)
        candidate = candidates[0]
        text: list[str] = []
        thoughts: list[str] = []
        calls: list[ToolCall] = []
        for part in candidate.content.parts or []:
            if part.function_call is not None:
                fc = part.function_call
                calls.append(ToolCall(fc.name or "", dict(fc.args or {}), id=fc.id))
            elif part.text:
                (thoughts if part.thought else text).append(part.text)
        finish = candidate.finish_reason
        return ModelResponse(text="".join(text).strip(), tool_calls=tuple(calls), thoughts="".join(thoughts).strip(),
                             usage=_usage(response), model=response.model_version or self.model,
                             finish_reason=str(getattr(finish, "value", finish)) if finish else None, raw=candidate.content)


def _usage(response: Any) -> Usage:
    meta = response.usage_metadata
    if meta is None:
        return Usage()
    return Usage(input=meta.prompt_token_count or 0, output=meta.candidates_token_count or 0,
                 thinking=meta.thoughts_token_count or 0)


def _retry_after(err: Any) -> float | None:
    """Retry-After from the header, else from the google.rpc.RetryInfo detail (`"retryDelay": "13s"`)."""
    response = getattr(err, "response", None)
    headers = getattr(response, "headers", None)
    if headers is not None:
        seconds = parse_retry_after(headers.get("retry-after"))
        if seconds is not None:
            return seconds
    details = err.details.get("error", {}).get("details", []) if isinstance(err.details, dict) else []
    for detail in details if isinstance(details, list) else []:
        if isinstance(detail, dict) and str(detail.get("@type", "")).endswith("RetryInfo"):
            match = _DURATION.match(str(detail.get("retryDelay", "")))
            if match:
                return float(match.group(1))
    return None
