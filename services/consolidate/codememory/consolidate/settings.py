"""The consolidate service's settings, from ``CODEMEMORY_CONSOLIDATE_<KEY>`` or ``CODEMEMORY_<KEY>``.

``interval_s``: how often a scheduled cycle runs for each tenant with something new (0: only on
request). ``summary_delay_s``: how often finished sessions are looked for, to summarise them and
derive their lessons soon after they end (0: only within full cycles). ``wait_s``: how long a
requested cycle waits for LOG to be folded and for new memories' vectors. Every threshold of
``ConsolidationPolicy`` is a key of its own (``CODEMEMORY_CONSOLIDATE_DUPLICATE_SIMILARITY=0.92``
...); the cue lists take comma-separated phrases (``CODEMEMORY_CONSOLIDATE_CHANGE_CUES``).
``llm_url``, ``llm_model``, ``llm_api_key``: an OpenAI-compatible endpoint that rewords lessons
(``phrasing``); unset, lessons are extracted only.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field

from codememory.consolidate.policy import ConsolidationPolicy
from codememory.settings import SettingsError, env_float, env_int, env_str, stream_replicas

SERVICE = "consolidate"


def _policy(environ: Mapping[str, str] | None) -> ConsolidationPolicy:
    values: dict[str, object] = {}
    for spec in dataclasses.fields(ConsolidationPolicy):
        default = getattr(ConsolidationPolicy(), spec.name)
        if isinstance(default, tuple):
            raw = env_str(SERVICE, spec.name, "", environ)
            if raw:
                values[spec.name] = tuple(p.strip().lower() for p in raw.split(",") if p.strip())
        elif isinstance(default, int) and not isinstance(default, bool):
            values[spec.name] = env_int(SERVICE, spec.name, default, environ)
        else:
            values[spec.name] = env_float(SERVICE, spec.name, float(default), environ)
    try:
        return ConsolidationPolicy(**values)  # type: ignore[arg-type]
    except ValueError as exc:
        raise SettingsError(f"consolidation settings: {exc}") from exc


@dataclass(frozen=True, kw_only=True)
class ConsolidateSettings:
    nats_url: str = "nats://127.0.0.1:4222"
    interval_s: float = 300.0
    wait_s: float = 20.0
    summary_delay_s: float = 10.0
    llm_url: str = ""  # an OpenAI-compatible endpoint that words lessons (empty: extracted only)
    llm_model: str = ""
    llm_api_key: str = field(default="", repr=False)
    log_level: str = "info"
    stream_replicas: int = 1
    policy: ConsolidationPolicy = field(default_factory=ConsolidationPolicy)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ConsolidateSettings:
        interval = env_float(SERVICE, "interval_s", cls.interval_s, environ)
        if interval < 0:
            raise SettingsError("CODEMEMORY_CONSOLIDATE_INTERVAL_S must be 0 or more")
        return cls(
            nats_url=env_str(SERVICE, "nats_url", cls.nats_url, environ),
            interval_s=interval,
            wait_s=env_float(SERVICE, "wait_s", cls.wait_s, environ),
            summary_delay_s=max(0.0, env_float(SERVICE, "summary_delay_s", cls.summary_delay_s, environ)),
            llm_url=env_str(SERVICE, "llm_url", "", environ),
            llm_model=env_str(SERVICE, "llm_model", "", environ),
            llm_api_key=env_str(SERVICE, "llm_api_key", "", environ),
            log_level=env_str(SERVICE, "log_level", cls.log_level, environ),
            stream_replicas=stream_replicas(environ),
            policy=_policy(environ),
        )
