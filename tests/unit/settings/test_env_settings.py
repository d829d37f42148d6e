from __future__ import annotations

import pytest

from codememory.embed.settings import EmbedSettings
from codememory.gateway.settings import GatewaySettings
from codememory.ingest.settings import IngestSettings
from codememory.settings import SettingsError, parse_tokens


def test_service_key_wins_over_the_shared_key() -> None:
    env = {"CODEMEMORY_NATS_URL": "nats://shared:1", "CODEMEMORY_INGEST_NATS_URL": "nats://ingest:2"}
    assert IngestSettings.from_env(env).nats_url == "nats://ingest:2"
    assert EmbedSettings.from_env(env).nats_url == "nats://shared:1"


def test_defaults_when_nothing_is_set() -> None:
    settings = GatewaySettings.from_env({"CODEMEMORY_HOME": "/tmp/cm"})
    assert settings.listen == "127.0.0.1:50051" and settings.qdrant_url == "" and settings.tokens == {}
    assert str(settings.data_dir) == "/tmp/cm/gateway"
    assert settings.query_runtime == "onnx" and str(settings.model_cache) == "/tmp/cm/models"


def test_the_query_runtime_is_onnx_or_torch() -> None:
    env = {"CODEMEMORY_GATEWAY_QUERY_RUNTIME": "torch", "CODEMEMORY_GATEWAY_MODEL_CACHE": "/srv/models"}
    settings = GatewaySettings.from_env(env)
    assert settings.query_runtime == "torch" and str(settings.model_cache) == "/srv/models"
    with pytest.raises(SettingsError, match="QUERY_RUNTIME"):
        GatewaySettings.from_env({"CODEMEMORY_GATEWAY_QUERY_RUNTIME": "gpu"})


def test_payload_cache_defaults_on_and_zero_turns_it_off() -> None:
    assert GatewaySettings.from_env({}).payload_cache == 20_000
    assert GatewaySettings.from_env({"CODEMEMORY_GATEWAY_PAYLOAD_CACHE": "0"}).payload_cache == 0
    with pytest.raises(SettingsError, match="PAYLOAD_CACHE"):
        GatewaySettings.from_env({"CODEMEMORY_GATEWAY_PAYLOAD_CACHE": "-1"})


def test_rebuild_indexing_threads_default_to_the_engines_choice() -> None:
    assert GatewaySettings.from_env({}).rebuild_indexing_threads == 0
    env = {"CODEMEMORY_GATEWAY_REBUILD_INDEXING_THREADS": "2"}
    assert GatewaySettings.from_env(env).rebuild_indexing_threads == 2
    with pytest.raises(SettingsError, match="REBUILD_INDEXING_THREADS"):
        GatewaySettings.from_env({"CODEMEMORY_GATEWAY_REBUILD_INDEXING_THREADS": "-1"})


def test_query_threads_default_to_two_and_must_be_positive() -> None:
    assert GatewaySettings.from_env({}).query_threads == 2
    assert GatewaySettings.from_env({"CODEMEMORY_GATEWAY_QUERY_THREADS": "1"}).query_threads == 1
    with pytest.raises(SettingsError, match="QUERY_THREADS"):
        GatewaySettings.from_env({"CODEMEMORY_GATEWAY_QUERY_THREADS": "0"})


def test_bad_numbers_and_token_maps_are_clear_errors() -> None:
    with pytest.raises(SettingsError, match="integer"):
        IngestSettings.from_env({"CODEMEMORY_BATCH": "many"})
    with pytest.raises(SettingsError, match="token=tenant"):
        parse_tokens("abc")
    assert parse_tokens("a=x, b=y") == {"a": "x", "b": "y"}


def test_the_embed_services_forward_batch_is_its_own_setting_apart_from_the_fetch_batch() -> None:
    assert EmbedSettings.from_env({}).forward_batch == 16
    env = {"CODEMEMORY_EMBED_FORWARD_BATCH": "32", "CODEMEMORY_EMBED_BATCH": "128"}
    settings = EmbedSettings.from_env(env)
    assert (settings.forward_batch, settings.batch) == (32, 128)
    with pytest.raises(SettingsError, match="FORWARD_BATCH"):
        EmbedSettings.from_env({"CODEMEMORY_EMBED_FORWARD_BATCH": "0"})
