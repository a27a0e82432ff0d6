"""Any OpenAI-compatible chat endpoint (vLLM, Ollama, llama.cpp's server, OpenAI itself) through httpx.

`POST {base}/chat/completions` with `tools` (function declarations) and the conversation as
system/user/assistant(tool_calls)/tool messages. Tool call arguments arrive as JSON text; text that
does not decode is reported back to the model instead of crashing the run. Reasoning models
served by vLLM or llama.cpp put their thinking in `reasoning_content` (or `reasoning`): it becomes
the turn's thought summary.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlparse

import httpx

from .base import Message, ModelResponse, ProviderError, ToolCall, ToolSpec, Usage, parse_retry_after


def chat_completions_url(base_url: str) -> str:
    """`http://host:8000/v1` -> `.../v1/chat/completions`; a bare `http://host:8000` gets `/v1` too."""
    base = base_url.rstrip("/")
    if base.endswith("/chat/completions"):
        return base
    if urlparse(base).path in ("", "/"):
        base += "/v1"
    return base + "/chat/completions"


class OpenAICompatProvider:
    name = "openai"

    def __init__(self, *, base_url: str, model: str, api_key: str | None = None, temperature: float = 0.1,
                 max_output_tokens: int = 8192, tool_choice: str = "auto", client: httpx.Client | None = None) -> None:
        self.url = chat_completions_url(base_url)
        self.model = model
        self.temperature = temperature
        self.max_output_tokens = max_output_tokens
        self.tool_choice = "required" if tool_choice.lower() in ("any", "required") else "auto"
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.client = client or httpx.Client(headers=headers)
        if client is not None and api_key:
            self.client.headers.update(headers)

    # -- request ------------------------------------------------------------------------------
    @staticmethod
    def messages(system: str, messages: list[Message]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = [{"role": "system", "content": system}]
        for m in messages:
            if m.role == "assistant":
                entry: dict[str, Any] = {"role": "assistant", "content": m.content or None}
                if m.tool_calls:
                    entry["tool_calls"] = [{"id": c.id, "type": "function",
                                            "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
                                           for c in m.tool_calls]
                out.append(entry)
            elif m.role == "tool":
                out.append({"role": "tool", "tool_call_id": m.tool_call_id, "name": m.name,
                            "content": json.dumps(m.result or {}, default=str)})
            else:
                out.append({"role": "user", "content": m.content})
        return out

    def body(self, system: str, messages: list[Message], tools: list[ToolSpec]) -> dict[str, Any]:
        return {
            "model": self.model,
            "messages": self.messages(system, messages),
            "tools": [{"type": "function", "function": {"name": t.name, "description": t.description,
                                                        "parameters": t.parameters}} for t in tools],
            "tool_choice": self.tool_choice,
            "temperature": self.temperature,
            "max_tokens": self.max_output_tokens,
        }

    def complete(self, system: str, messages: list[Message], tools: list[ToolSpec], *,
                 timeout_s: float | None = None) -> ModelResponse:
        try:
            response = self.client.post(self.url, json=self.body(system, messages, tools), timeout=timeout_s)
        except httpx.TransportError as err:  # connection refused, timeouts: worth another try
            raise ProviderError(f"cannot reach {self.url}: {type(err).__name__}: {err}", retryable=True) from None
        if response.status_code >= 400:
            raise ProviderError(f"{self.url} answered {response.status_code}: {_error_message(response)}",
                                status=response.status_code, retry_after=parse_retry_after(response.headers.get("retry-after")))
        try:
            data = response.json()
        except ValueError:
            raise ProviderError(f"{self.url} answered with something that is not JSON", retryable=True) from None
        return self.parse(data, len([m for m in messages if m.role == "assistant"]))

    # -- response -----------------------------------------------------------------------------
    def parse(self, data: dict[str, Any], turn: int = 0) -> ModelResponse:
        choices = data.get("choices") or []
        if not choices:
            raise ProviderError(f"{self.url} answered without choices: {str(data)[:200]}", retryable=True)
        choice = choices[0]
        message = choice.get("message") or {}
        calls = []
        for i, raw in enumerate(message.get("tool_calls") or []):
            function = raw.get("function") or {}
            call_id = raw.get("id") or f"call_{turn}_{i}"  # some servers send none; the tool message needs one
            arguments, error = _arguments(function.get("arguments"))
            calls.append(ToolCall(function.get("name") or "", arguments, id=call_id, argument_error=error))
        usage = data.get("usage") or {}
        reasoning_tokens = ((usage.get("completion_tokens_details") or {}).get("reasoning_tokens") or 0)
        completion = usage.get("completion_tokens") or 0
        return ModelResponse(
            text=(message.get("content") or "").strip(),
            tool_calls=tuple(calls),
            thoughts=(message.get("reasoning_content") or message.get("reasoning") or "").strip(),
            usage=Usage(input=usage.get("prompt_tokens") or 0, output=max(0, completion - reasoning_tokens),
                        thinking=reasoning_tokens),
            model=data.get("model") or self.model,
            finish_reason=choice.get("finish_reason"),
        )


def _arguments(raw: Any) -> tuple[dict[str, Any], str | None]:
    """Arguments as a dict, or ({}, why not)."""
    if isinstance(raw, dict):
        return raw, None
    if raw in (None, ""):
        return {}, None
    try:
        value = json.loads(raw)
    except (TypeError, json.JSONDecodeError) as exc:
        return {}, f"invalid JSON ({exc})"
    return (value, None) if isinstance(value, dict) else ({}, "the arguments are not a JSON object")


def _error_message(response: httpx.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        return response.text[:300] or response.reason_phrase
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict):
        return str(error.get("message") or error)
    return str(error or data)[:300]
