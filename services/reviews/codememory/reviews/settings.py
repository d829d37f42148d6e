"""The reviews service's settings, from ``CODEMEMORY_REVIEWS_<KEY>`` or ``CODEMEMORY_<KEY>``.

``wait_s``: how long a delivery waits for the service's own view of LOG to reach it (the graph a
commit is reviewed against, the turns before an edit) before it is retried. ``commit_max_age_s``:
commits authored longer ago than this when they are recorded (a history backfill) are not reviewed;
their risk against today's graph would say nothing. 0 reviews every commit.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

from codememory.settings import ConsumerSettings, SettingsError, env_float

SERVICE = "reviews"


@dataclass(frozen=True, kw_only=True)
class ReviewsSettings(ConsumerSettings):
    batch: int = 32
    wait_s: float = 10.0
    commit_max_age_s: float = 7 * 86400.0

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ReviewsSettings:
        base = cls.load(SERVICE, environ)
        wait_s = env_float(SERVICE, "wait_s", cls.wait_s, environ)
        max_age = env_float(SERVICE, "commit_max_age_s", cls.commit_max_age_s, environ)
        if wait_s <= 0 or max_age < 0:
            raise SettingsError("CODEMEMORY_REVIEWS_WAIT_S must be > 0 and COMMIT_MAX_AGE_S >= 0")
        return dataclasses.replace(base, wait_s=wait_s, commit_max_age_s=max_age)
