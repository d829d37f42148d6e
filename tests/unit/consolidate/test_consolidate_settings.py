import pytest

from codememory.consolidate.settings import ConsolidateSettings
from codememory.settings import SettingsError


def test_every_threshold_comes_from_the_environment() -> None:
    settings = ConsolidateSettings.from_env(
        {
            "CODEMEMORY_CONSOLIDATE_DUPLICATE_SIMILARITY": "0.95",
            "CODEMEMORY_CONSOLIDATE_SUPERSEDE_RANK": "2",
            "CODEMEMORY_CONSOLIDATE_CHANGE_CUES": "instead, from now on",
            "CODEMEMORY_CONSOLIDATE_INTERVAL_S": "0",
        }
    )
    assert settings.policy.duplicate_similarity == 0.95 and settings.policy.supersede_rank == 2
    assert settings.policy.change_cues == ("instead", "from now on") and settings.interval_s == 0


def test_inconsistent_thresholds_are_refused_clearly() -> None:
    with pytest.raises(SettingsError, match="supersede_similarity"):
        ConsolidateSettings.from_env({"CODEMEMORY_CONSOLIDATE_SUPERSEDE_SIMILARITY": "0.99"})
    with pytest.raises(SettingsError, match="number"):
        ConsolidateSettings.from_env({"CODEMEMORY_CONSOLIDATE_LINK_SIMILARITY": "high"})
