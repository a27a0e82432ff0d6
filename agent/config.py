"""The agent's configuration: environment variables, overridden by flags (`--provider`, `--model`).

Read once per run (CLI) or per request (REST) into an immutable `AgentConfig`; the variables are parsed
by pydantic-settings (`AgentEnv`, like the service's `Settings`). Nothing else in the agent reads the
environment, so a test builds an `AgentConfig(...)` and gets an isolated run.

| variable | meaning |
|---|---|
| SMQ_PROVIDER | gemini (default) or openai; unset: gemini, or openai when only OPENAI_BASE_URL is set |
| SMQ_MODEL | model name (gemini default: gemini-2.5-flash; openai: required) |
| GEMINI_API_KEY / GOOGLE_API_KEY | Gemini API key |
| OPENAI_BASE_URL / OPENAI_API_KEY | an OpenAI-compatible endpoint (vLLM, Ollama, llama.cpp, ...) |
| SMQ_TEMPERATURE, SMQ_MAX_OUTPUT_TOKENS | sampling (default 0.1; 8192) |
| SMQ_THINKING_LEVEL, SMQ_THINKING_BUDGET | Gemini thinking: minimal/low/medium/high, or a token budget |
| SMQ_INCLUDE_THOUGHTS | 0 to stop asking Gemini for thought summaries (for models without thinking) |
| SMQ_AGENT_MAX_TURNS, SMQ_AGENT_TIMEOUT_S | the step budget (30) and the per-run time budget (300 s) |
| SMQ_TRACE_DIR | where traces are written (default ./traces) |
| SMQ_AGENT_TOOLS | exploration tools switched on besides the three core tools (comma-separated, docs/directives.md) |
| SMQ_AGENT_TIPS, SMQ_AGENT_PROFILE | tips / profile warnings on compile results (1/0; profile default: auto) |
| SMQ_AGENT_CLARIFY | 1: the clarification pool (ask_user, drop_question); 0 (default): state assumptions |
| SMQ_AGENT_PLANS, SMQ_AGENT_REPAIR_ROUNDS | plan voting attempts (1) and two-tier repair rounds (3) |

The reasoning switches (docs/reasoning.md) and why their defaults are what they are:
- `tips` on: deterministic, no model call, no query, at most three short tips per compile result.
- `profile` auto: on, except on BigQuery and Snowflake, where every profiling query scans (and bills)
  a column of a possibly huge table; `True`/`False` force it.
- `clarify` off: the three core tools only, and nobody answers in evaluation or scripts; `smq ask` turns it
  on (a person is at the terminal), REST clients opt in per request.
- `plans` 1: voting multiplies the model calls by K.
- `repair_rounds` 3: costs nothing until a result looks wrong, then at most three extra rounds.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from pydantic import AliasChoices, Field, ValidationError, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, EnvSettingsSource, NoDecode, PydanticBaseSettingsSource, SettingsConfigDict

from engine.dialects import dialect as dialect_of, find as find_engine
from engine.errors import EngineError, Location

from .retry import RetryPolicy

PROVIDERS = ("gemini", "openai")
DEFAULT_GEMINI_MODEL = "gemini-2.5-flash"
DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"
THINKING_LEVELS = ("minimal", "low", "medium", "high")
MAX_PLANS = 8
TRUE_WORDS, FALSE_WORDS = ("1", "true", "yes", "on"), ("0", "false", "no", "off")

NOT_CONFIGURED_HELP = (
    "set GEMINI_API_KEY (or GOOGLE_API_KEY) to use Gemini, or SMQ_PROVIDER=openai with OPENAI_BASE_URL "
    "(an OpenAI-compatible endpoint such as vLLM, Ollama or llama.cpp), SMQ_MODEL and, if the endpoint needs one, "
    "OPENAI_API_KEY"
)


class AgentNotConfigured(EngineError):
    """No model can be called: the message names the environment variables to set (HTTP 503, exit code 3)."""

    code = "agent_not_configured"


class AgentConfigError(EngineError):
    """A configuration value is wrong (not a number, an unknown provider): the caller's mistake."""

    code = "invalid_agent_config"


@dataclass(frozen=True)
class AgentConfig:
    provider: str = "gemini"
    model: str | None = None
    gemini_api_key: str | None = None
    gemini_base_url: str | None = None  # a proxy or a test endpoint; None: Google's
    openai_base_url: str | None = None
    openai_api_key: str | None = None
    temperature: float = 0.1
    max_output_tokens: int = 8192
    thinking_level: str | None = None  # Gemini 3: minimal | low | medium | high
    thinking_budget: int | None = None  # Gemini 2.5: tokens (0 off, -1 dynamic)
    include_thoughts: bool = True  # ask for thought summaries: they are the trace's reasoning when no text is written
    tool_choice: str = "auto"  # auto: the model may write reasoning before its call; any/required: a call is forced
    max_turns: int = 30
    max_smq_calls: int = 20
    max_repairs: int = 3
    run_timeout_s: float = 300.0
    request_timeout_s: float = 120.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    max_rows: int = 1000
    query_timeout_s: float = 30.0
    preview_rows: int = 5
    trace_dir: Path | None = Path("traces")  # None: no trace files (the result still carries the trace)
    tools: tuple[str, ...] = ()  # exploration tools (agent/explore.py) on top of the three core tools; default none
    # -- reasoning mechanisms (docs/reasoning.md) ---------------------------------------------------------
    tips: bool = True  # tips (agent/tips) with compile results and repairs
    max_tips: int = 3  # per result
    profile: bool | None = None  # profile warnings on compile results; None: auto (off on billed warehouses)
    clarify: bool = False  # the clarification pool: ask_user / drop_question; off: the agent states assumptions
    plans: int = 1  # plan voting: attempts run concurrently, the majority answer wins
    repair_rounds: int = 3  # two-tier repair: suspicious results sent back / replans allowed; 0 off

    def profile_enabled(self, dialect: str) -> bool:
        """Whether compile results get profile warnings on a database of this dialect."""
        if self.profile is not None:
            return self.profile
        return not (find_engine(dialect) is not None and dialect_of(dialect).billed)  # each query scans and costs there

    @property
    def model_name(self) -> str:
        """The model to call; raises AgentNotConfigured when the provider has no default."""
        if self.model:
            return self.model
        if self.provider == "gemini":
            return DEFAULT_GEMINI_MODEL
        raise AgentNotConfigured(f"no model named for the OpenAI-compatible endpoint {self.openai_base_url}: set SMQ_MODEL "
                                 "(or pass --model)")

    def check(self) -> None:
        """Raise AgentNotConfigured when no model can be called with this configuration."""
        if self.provider == "gemini":
            if not self.gemini_api_key:
                raise AgentNotConfigured(f"no model provider configured: {NOT_CONFIGURED_HELP}")
        elif self.provider == "openai":
            if not self.openai_base_url:
                raise AgentNotConfigured(f"the openai provider needs OPENAI_BASE_URL: {NOT_CONFIGURED_HELP}")
            self.model_name  # noqa: B018 - raises when missing
        else:
            raise AgentConfigError(f"unknown provider '{self.provider}' (choose {' or '.join(PROVIDERS)})",
                                   location=Location(field="provider"))

    def replace(self, **changes: Any) -> AgentConfig:
        return dataclasses.replace(self, **changes)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> AgentConfig:
        """The configuration from the environment (`AgentEnv`); `overrides` (flags) win when not None."""
        env = AgentEnv.read(environ)
        provider = env.provider or ("openai" if env.openai_base_url and not env.gemini_api_key else "gemini")
        values: dict[str, Any] = {
            "provider": provider,
            "model": env.model,
            "gemini_api_key": env.gemini_api_key,
            "openai_base_url": env.openai_base_url or (DEFAULT_OPENAI_BASE_URL if env.openai_api_key and provider == "openai" else None),
            "openai_api_key": env.openai_api_key,
        }
        values.update(env.model_dump(exclude_none=True, exclude=set(values)))
        values.update({k: v for k, v in overrides.items() if v is not None})
        if values.get("provider") is not None:
            values["provider"] = str(values["provider"]).lower()
        config = cls(**values)
        config.validate()
        return config

    def validate(self) -> None:
        """Value checks that do not need a model (bad input, not missing configuration)."""
        if self.provider not in PROVIDERS:
            raise AgentConfigError(f"unknown provider '{self.provider}' (choose {' or '.join(PROVIDERS)})",
                                   location=Location(field="provider"))
        if self.thinking_level is not None and self.thinking_level.lower() not in THINKING_LEVELS:
            raise AgentConfigError(f"SMQ_THINKING_LEVEL must be one of {', '.join(THINKING_LEVELS)}, got {self.thinking_level!r}",
                                   location=Location(field="thinking_level"))
        if self.tools:
            from .explore import EXPLORE_TOOLS

            unknown = [t for t in self.tools if t not in EXPLORE_TOOLS]
            if unknown:
                raise AgentConfigError(f"unknown tool(s) {', '.join(unknown)}; the optional tools are {', '.join(EXPLORE_TOOLS)}",
                                       location=Location(field="tools"))
        if self.max_turns < 1 or self.max_smq_calls < 0 or self.max_repairs < 0 or self.run_timeout_s <= 0:
            raise AgentConfigError("the agent's budgets must be positive (max turns, SMQ calls, repairs, timeout)")
        if not 1 <= self.plans <= MAX_PLANS:
            raise AgentConfigError(f"plans must be between 1 and {MAX_PLANS}, got {self.plans}", location=Location(field="plans"))
        if self.repair_rounds < 0 or self.max_tips < 0:
            raise AgentConfigError("repair rounds and tips per result cannot be negative", location=Location(field="repair_rounds"))


_ENVIRON: ContextVar[Mapping[str, str] | None] = ContextVar("smq_agent_environ", default=None)


class _EnvironSource(EnvSettingsSource):
    """The variables of one mapping (os.environ, or a test's dict), exactly as named; empty ones are unset."""

    def __init__(self, settings_cls: type[BaseSettings], environ: Mapping[str, str]) -> None:
        self._environ = environ
        super().__init__(settings_cls)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        return {name: value for name, value in self._environ.items() if value != ""}


class AgentEnv(BaseSettings):
    """The agent's environment variables (the table above), parsed and checked; None: the variable is unset.

    Like the service's `Settings`, read with pydantic-settings; unlike it, the names are not all `SMQ_*`
    (the vendors' own GEMINI_API_KEY, OPENAI_BASE_URL...), so each field names its variable. `AgentConfig`
    stays a plain immutable value: building one never reads the environment, only `from_env` does.
    Fields are declared in the order their errors are reported (the first bad variable wins).
    """

    model_config = SettingsConfigDict(case_sensitive=True, extra="ignore")

    provider: str | None = Field(default=None, validation_alias="SMQ_PROVIDER")
    model: str | None = Field(default=None, validation_alias="SMQ_MODEL")
    gemini_api_key: str | None = Field(default=None, validation_alias=AliasChoices("GEMINI_API_KEY", "GOOGLE_API_KEY"))
    openai_base_url: str | None = Field(default=None, validation_alias="OPENAI_BASE_URL")
    openai_api_key: str | None = Field(default=None, validation_alias="OPENAI_API_KEY")
    temperature: float | None = Field(default=None, validation_alias="SMQ_TEMPERATURE")
    max_output_tokens: int | None = Field(default=None, validation_alias="SMQ_MAX_OUTPUT_TOKENS")
    thinking_budget: int | None = Field(default=None, validation_alias="SMQ_THINKING_BUDGET")
    max_turns: int | None = Field(default=None, validation_alias="SMQ_AGENT_MAX_TURNS")
    run_timeout_s: float | None = Field(default=None, validation_alias="SMQ_AGENT_TIMEOUT_S")
    thinking_level: str | None = Field(default=None, validation_alias="SMQ_THINKING_LEVEL")  # checked by AgentConfig.validate
    include_thoughts: bool | None = Field(default=None, validation_alias="SMQ_INCLUDE_THOUGHTS")
    tools: Annotated[tuple[str, ...] | None, NoDecode] = Field(default=None, validation_alias="SMQ_AGENT_TOOLS")
    tips: bool | None = Field(default=None, validation_alias="SMQ_AGENT_TIPS")
    profile: bool | None = Field(default=None, validation_alias="SMQ_AGENT_PROFILE")
    clarify: bool | None = Field(default=None, validation_alias="SMQ_AGENT_CLARIFY")
    plans: int | None = Field(default=None, validation_alias="SMQ_AGENT_PLANS")
    repair_rounds: int | None = Field(default=None, validation_alias="SMQ_AGENT_REPAIR_ROUNDS")
    trace_dir: Path | None = Field(default=None, validation_alias="SMQ_TRACE_DIR")

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
                                   env_settings: PydanticBaseSettingsSource, dotenv_settings: PydanticBaseSettingsSource,
                                   file_secret_settings: PydanticBaseSettingsSource) -> tuple[PydanticBaseSettingsSource, ...]:
        """Only the environment being read (`read`): no init values, .env files or secrets directories."""
        environ = _ENVIRON.get()
        return (_EnvironSource(settings_cls, os.environ if environ is None else environ),)

    @classmethod
    def read(cls, environ: Mapping[str, str] | None = None) -> AgentEnv:
        """The variables of `environ` (default: the process environment); a bad value is an AgentConfigError."""
        token = _ENVIRON.set(environ)
        try:
            return cls()
        except ValidationError as err:
            first = err.errors()[0]
            variable = _variable(str(first["loc"][0]))
            cause = first.get("ctx", {}).get("error")
            message = str(cause) if isinstance(cause, ValueError) else f"{variable}: {first['msg']}"
            raise AgentConfigError(message, location=Location(field=variable)) from None
        finally:
            _ENVIRON.reset(token)

    @field_validator("provider", mode="before")
    @classmethod
    def _provider(cls, raw: Any) -> Any:
        if not isinstance(raw, str):
            return raw  # not from the environment (a default)
        return raw.strip().lower() or None

    @field_validator("temperature", "run_timeout_s", mode="before")
    @classmethod
    def _number(cls, raw: Any, info: ValidationInfo) -> Any:
        if not isinstance(raw, str):
            return raw  # not from the environment (a default)
        return _parsed(float, raw, _variable(info.field_name), "a number")

    @field_validator("max_output_tokens", "thinking_budget", "max_turns", "plans", "repair_rounds", mode="before")
    @classmethod
    def _whole_number(cls, raw: Any, info: ValidationInfo) -> Any:
        if not isinstance(raw, str):
            return raw  # not from the environment (a default)
        return _parsed(int, raw, _variable(info.field_name), "a whole number")

    @field_validator("include_thoughts", mode="before")
    @classmethod
    def _thoughts(cls, raw: Any) -> Any:
        if not isinstance(raw, str):
            return raw  # not from the environment (a default)
        return raw.strip().lower() not in FALSE_WORDS  # anything but an explicit "off" keeps them

    @field_validator("tools", mode="before")
    @classmethod
    def _tools(cls, raw: Any) -> Any:
        if not isinstance(raw, str):
            return raw  # not from the environment (a default)
        return parse_tools(raw)

    @field_validator("tips", "profile", "clarify", mode="before")
    @classmethod
    def _switch(cls, raw: Any, info: ValidationInfo) -> Any:
        if not isinstance(raw, str):
            return raw  # not from the environment (a default)
        variable = _variable(info.field_name)
        try:
            return parse_switch(variable, raw, allow_auto=info.field_name == "profile")
        except AgentConfigError as err:
            raise ValueError(err.message) from None


def _variable(field_name: str | None) -> str:
    """The environment variable of an AgentEnv field (the first, where there are two)."""
    alias = AgentEnv.model_fields[field_name].validation_alias if field_name in AgentEnv.model_fields else None
    if isinstance(alias, AliasChoices):
        return str(alias.choices[0])
    return str(alias or field_name)


def _parsed(kind: Callable[[str], Any], raw: str, variable: str, what: str) -> Any:
    try:
        return kind(raw)
    except ValueError:
        raise ValueError(f"{variable} must be {what}, got {raw!r}") from None


def parse_tools(text: str | None) -> tuple[str, ...]:
    """`listTables, describe_table` -> ("listTables", "describeTable"): declared names (old spellings too), order kept,
    repeats dropped."""
    from .tool_registry import canonical

    return tuple(dict.fromkeys(canonical(t.strip()) for t in (text or "").split(",") if t.strip()))


def parse_switch(name: str, text: str, *, allow_auto: bool = False) -> bool | None:
    """`1/true/yes/on` -> True, `0/false/no/off` -> False (and `auto` -> None where allowed); else a config error."""
    word = text.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    if allow_auto and word == "auto":
        return None
    raise AgentConfigError(f"{name} must be on or off (1/0, true/false{', auto' if allow_auto else ''}), got {text!r}",
                           location=Location(field=name))
