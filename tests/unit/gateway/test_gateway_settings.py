"""The gateway's settings for running as replicas (stall time, port sharing, stream replicas), and the
HNSW search breadth."""

from __future__ import annotations

import pytest

from codememory.gateway.settings import GatewaySettings
from codememory.settings import SettingsError


def test_replica_defaults() -> None:
    settings = GatewaySettings.from_env({})
    assert settings.stall_after_s == 30.0 and settings.reuse_port and settings.stream_replicas == 1


def test_replica_settings_from_the_environment() -> None:
    env = {
        "CODEMEMORY_GATEWAY_STALL_AFTER_S": "2.5",
        "CODEMEMORY_GATEWAY_REUSE_PORT": "0",
        "CODEMEMORY_STREAM_REPLICAS": "3",
    }
    settings = GatewaySettings.from_env(env)
    assert settings.stall_after_s == 2.5 and not settings.reuse_port and settings.stream_replicas == 3


@pytest.mark.parametrize(
    "env", [{"CODEMEMORY_GATEWAY_STALL_AFTER_S": "0"}, {"CODEMEMORY_STREAM_REPLICAS": "2"}]
)
def test_bad_replica_settings_are_refused(env: dict[str, str]) -> None:
    with pytest.raises(SettingsError):
        GatewaySettings.from_env(env)


def test_hnsw_ef_defaults_to_the_engine_and_is_bounded() -> None:
    assert GatewaySettings.from_env({}).dense_search.hnsw_ef == 0
    assert GatewaySettings.from_env({"CODEMEMORY_GATEWAY_HNSW_EF": "64"}).dense_search.hnsw_ef == 64
    for bad in ("-1", "5000"):
        with pytest.raises(SettingsError, match="HNSW_EF"):
            GatewaySettings.from_env({"CODEMEMORY_GATEWAY_HNSW_EF": bad})


def test_quantized_searches_are_not_rescored_unless_asked() -> None:
    assert GatewaySettings.from_env({}).dense_search.rescore is False
    assert GatewaySettings().dense_search.rescore is False
    assert GatewaySettings.from_env({"CODEMEMORY_GATEWAY_RESCORE": "1"}).dense_search.rescore is True


def test_the_shard_layout_is_int8_unless_another_is_asked_for() -> None:
    assert GatewaySettings.from_env({}).shard_layout.name == "int8"
    assert GatewaySettings().shard_layout.name == "int8"  # constructed directly, as tests and tools do
    ram = GatewaySettings.from_env({"CODEMEMORY_GATEWAY_SHARD_LAYOUT": "ram"}).shard_layout
    assert ram.quantization == "none" and not ram.dense_on_disk
    disk = GatewaySettings.from_env({"CODEMEMORY_GATEWAY_SHARD_LAYOUT": " Disk "}).shard_layout
    assert disk.name == "disk" and disk.quantization == "int8" and disk.dense_on_disk
    int8 = GatewaySettings.from_env({"CODEMEMORY_GATEWAY_SHARD_LAYOUT": "int8"}).shard_layout
    assert int8.name == "int8" and int8.dense_on_disk and not int8.payload_on_disk
    with pytest.raises(SettingsError, match=r"SHARD_LAYOUT.*ram, int8, disk"):
        GatewaySettings.from_env({"CODEMEMORY_GATEWAY_SHARD_LAYOUT": "ssd"})


def test_an_import_past_5000_memories_is_redacted_in_workers_unless_told_otherwise() -> None:
    assert GatewaySettings.from_env({}).import_workers_after == 5000
    env = {"CODEMEMORY_GATEWAY_IMPORT_WORKERS_AFTER": "0"}
    assert GatewaySettings.from_env(env).import_workers_after == 0


def test_the_heap_is_walked_every_ten_minutes_by_default_and_a_negative_interval_is_refused() -> None:
    assert GatewaySettings.from_env({}).gc_thaw_s == 600.0
    assert GatewaySettings.from_env({"CODEMEMORY_GATEWAY_GC_THAW_S": "0"}).gc_thaw_s == 0.0
    with pytest.raises(SettingsError, match="GC_THAW_S"):
        GatewaySettings.from_env({"CODEMEMORY_GATEWAY_GC_THAW_S": "-1"})
