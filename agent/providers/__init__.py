"""Model providers behind one small interface (base.Provider): Gemini, OpenAI-compatible, scripted."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Message, ModelResponse, Provider, ProviderError, ToolCall, ToolSpec, Usage

if TYPE_CHECKING:
    from ..config import AgentConfig

__all__ = ["Message", "ModelResponse", "Provider", "ProviderError", "ToolCall", "ToolSpec", "Usage", "make_provider"]


def make_provider(config: AgentConfig) -> Provider:
    """The provider a configuration names; raises AgentNotConfigured naming what to set or install."""
    from ..config import AgentNotConfigured

    config.check()
    if config.provider == "gemini":
        try:
            from .gemini import GeminiProvider

            return GeminiProvider(api_key=config.gemini_api_key or "", model=config.model_name,
                                  temperature=config.temperature, max_output_tokens=config.max_output_tokens,
                                  thinking_level=config.thinking_level, thinking_budget=config.thinking_budget,
                                  include_thoughts=config.include_thoughts, tool_choice=config.tool_choice,
                                  base_url=config.gemini_base_url)
        except ImportError:
            raise AgentNotConfigured("the Gemini provider needs the google-genai package: pip install google-genai "
                                     "(or set SMQ_PROVIDER=openai with OPENAI_BASE_URL for an OpenAI-compatible endpoint)") from None
    from .openai_compat import OpenAICompatProvider

    return OpenAICompatProvider(base_url=config.openai_base_url or "", model=config.model_name,
                                api_key=config.openai_api_key, temperature=config.temperature,
                                max_output_tokens=config.max_output_tokens, tool_choice=config.tool_choice)
