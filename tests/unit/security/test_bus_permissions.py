"""The NATS users and permissions made from the topology, and how clients present credentials."""

from __future__ import annotations

import json
import stat
from dataclasses import replace
from pathlib import Path

from codememory import subjects
from codememory.bus.auth import BusCredentials, TlsFiles
from codememory.bus.permissions import (
    authorization_block,
    bus_users,
    hook_inbox,
    hook_permissions,
    hook_user,
    one_process_permissions,
    service_permissions,
    user_names,
)
from codememory.hookclient import HookSettings
from codememory.runtime.buscreds import prepare_bus
from codememory.topology import GATEWAY, INGEST, SERVICES, Consumer, Service


def test_every_service_of_the_topology_has_a_user_and_a_new_one_gets_its_permissions() -> None:
    names = {u.name for u in bus_users({n: "pw" for n in user_names(["t"])}, ["t"])}
    assert {s.name for s in SERVICES} | {"admin", "up", "hook-t"} == names
    new = Service(
        name="review2",
        consumers=(Consumer(stream="LOG", durable="review2", filter_subject="cm.log.*.memory.stored"),),
    )
    perms = service_permissions(new)
    assert "$JS.API.CONSUMER.MSG.NEXT.LOG.review2" in perms.publish
    assert "$JS.ACK.LOG.review2.>" in perms.publish and "cm.dlq.review2" in perms.publish
    assert "$JS.API.CONSUMER.MSG.NEXT.LOG.*" not in perms.publish  # not a whole-LOG reader
    assert not any(p.startswith("cm.hooks") or "DELETE" in p or "PURGE" in p for p in perms.publish)
    assert perms.subscribe == ("_INBOX_review2.>",) and not perms.allow_responses  # its own replies only


def test_only_the_gateway_answers_context_and_only_ingest_reads_hooks() -> None:
    for service in SERVICES:
        perms = service_permissions(service)
        assert (subjects.CONTEXT_REQUESTS in perms.subscribe) == (service is GATEWAY)
        assert any(".HOOKS." in p and "MSG.NEXT" in p for p in perms.publish) == (service is INGEST)
        assert not any(
            p.startswith("$JS.API.STREAM.") and p.split(".")[3] in {"DELETE", "PURGE", "UPDATE"}
            for p in perms.publish
        )
    union = one_process_permissions()
    assert set(union.publish) == {p for s in SERVICES for p in service_permissions(s).publish}
    assert "_INBOX_up.>" in union.subscribe and not any(s.startswith("_INBOX_g") for s in union.subscribe)


def test_each_user_reads_its_own_inbox_and_no_one_elses() -> None:
    inboxes = {s.name: f"{subjects.inbox(s.name)}.>" for s in SERVICES}
    for service in SERVICES:
        readable = [s for s in service_permissions(service).subscribe if s.startswith("_INBOX")]
        assert readable == [inboxes[service.name]] and not readable[0].startswith("_INBOX.")
    creds = BusCredentials(user="gateway", password="pw")
    broker, client = creds.broker_options(), creds.connect_options()
    assert broker["inbox_prefix"] == client["inbox_prefix"] == "_INBOX_gateway"
    assert subjects.inbox("hook-alpha") == hook_inbox("alpha") and subjects.inbox("") == "_INBOX"


def test_a_hook_user_is_pinned_to_its_tenant() -> None:
    perms = hook_permissions("alpha")
    assert perms.publish[:2] == ("cm.hooks.alpha.>", "cm.rpc.alpha.context")
    assert all(p.startswith(("cm.hooks.alpha.", "cm.rpc.alpha.")) for p in perms.publish)  # its tenant only
    assert perms.subscribe == ("_INBOX_hook-alpha.>",) and hook_inbox("alpha") == "_INBOX_hook-alpha"
    assert hook_permissions("a.b>").publish[0] == "cm.hooks.a_b_.>"  # no wildcard smuggled in


def test_the_authorization_block_quotes_secrets_and_leaves_variables_to_the_server() -> None:
    users = bus_users({n: 'p"w' if n == "admin" else "$CM_X" for n in user_names(["t"])}, ["t"])
    block = authorization_block(users)
    assert '{user: "admin", password: "p\\"w"}' in block
    assert "password: $CM_X" in block and "allow_responses: true" in block
    assert block.count("{user:") == len(users)


def test_credentials_come_from_the_environment_and_never_show(tmp_path: Path) -> None:
    creds = BusCredentials.from_env(
        "embed", {"CODEMEMORY_EMBED_NATS_USER": "embed", "CODEMEMORY_NATS_PASSWORD": "s3cret"}
    )
    assert (creds.user, creds.password) == ("embed", "s3cret") and "s3cret" not in repr(creds)
    assert creds.connect_options() == {"user": "embed", "password": "s3cret", "inbox_prefix": "_INBOX_embed"}
    assert BusCredentials.from_env("embed", creds.as_env()) == creds
    assert BusCredentials().broker_options() == {}
    with_ca = replace(creds, tls=TlsFiles(ca=""))
    assert "tls" in with_ca.connect_options()


def test_up_makes_private_credentials_once_and_the_hook_takes_its_tenant_from_them(tmp_path: Path) -> None:
    bus = prepare_bus(tmp_path, "local", ("alpha",))
    again = prepare_bus(tmp_path, "local", ("alpha", "beta"))
    assert again.passwords["ingest"] == bus.passwords["ingest"] and "hook-beta" in again.passwords
    secrets = tmp_path / "secrets"
    assert stat.S_IMODE(secrets.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in secrets.iterdir())
    assert bus.passwords["admin"] in bus.authorization
    hook = HookSettings.from_env({"CODEMEMORY_HOME": str(tmp_path), "CODEMEMORY_TENANT": "beta"})
    assert (hook.nats_user, hook.tenant) == (hook_user("local"), "local")  # the credential's tenant
    assert hook.nats_password == bus.passwords["hook-local"] and hook.nats_password not in repr(hook)
    alpha = HookSettings.from_env(
        {"CODEMEMORY_HOME": str(tmp_path), "CODEMEMORY_HOOK_CREDENTIALS": str(secrets / "hook-alpha.json")}
    )
    assert (
        alpha.tenant == "alpha"
        and json.loads((secrets / "hook-alpha.json").read_text())["user"] == "hook-alpha"
    )
    bare = HookSettings.from_env({"CODEMEMORY_HOME": str(tmp_path / "none"), "CODEMEMORY_TENANT": "t"})
    assert (bare.nats_user, bare.tenant) == ("", "t")


def test_each_supervised_replica_logs_in_as_its_own_service_only(tmp_path: Path) -> None:
    from codememory.runtime.cluster import service_specs
    from codememory.runtime.stack import StackSettings

    settings = StackSettings(home=tmp_path, scale={s.name: 2 for s in SERVICES})
    bus = prepare_bus(tmp_path, "local")
    specs = service_specs(settings, "nats://127.0.0.1:1", "127.0.0.1:0", bus)
    assert len(specs) == 2 * len(SERVICES)
    for spec in specs:
        assert spec.env["CODEMEMORY_NATS_USER"] == spec.service
        assert spec.env["CODEMEMORY_NATS_PASSWORD"] == bus.passwords[spec.service]
        others = {p for user, p in bus.passwords.items() if user != spec.service}
        assert not others & set(spec.env.values())  # nobody else's password, the admin's included
