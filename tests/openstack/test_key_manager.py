"""OS::Barbican::Secret and the generic, certificate and RSA containers against the simulated cloud
over HTTP, through openstacksdk."""

from __future__ import annotations

import pytest

from providers.interface import LiveStatus, NotFound, Permanent
from tests.openstack.conftest import CloudUnderTest
from tests.openstack.scenario import marker

SECRET = "OS::Barbican::Secret"
PAYLOAD = "correct horse battery staple"


def test_a_secret_is_referenced_by_url_carries_its_marker_and_keeps_its_payload(sim: CloudUnderTest) -> None:
    vault = marker("vault")
    created = sim.provider.create(SECRET, {"payload": PAYLOAD, "payload_content_type": "text/plain"}, vault)

    found = sim.provider.find_by_marker(SECRET, vault)
    seen = sim.provider.observe(SECRET, [created.physical_id])

    assert created.physical_id.startswith("http") and "/key-manager/v1/secrets/" in created.physical_id
    assert created.status is LiveStatus.READY and created.attributes["decrypted_payload"] == PAYLOAD
    assert found is not None and found.physical_id == created.physical_id
    assert (
        set(seen) == {created.physical_id} and "decrypted_payload" not in seen[created.physical_id].attributes
    )
    assert sim.provider.find_by_marker(SECRET, marker("vault")) is None


def test_a_payload_without_its_content_type_is_refused_without_showing_the_payload(
    sim: CloudUnderTest,
) -> None:
    with pytest.raises(Permanent, match="payload_content_type") as refused:
        sim.provider.create(SECRET, {"payload": PAYLOAD}, marker("bad"))
    assert PAYLOAD not in str(refused.value)


def test_containers_name_secrets_by_reference_and_are_observed_in_pages(sim: CloudUnderTest) -> None:
    plain = {"payload": "x", "payload_content_type": "text/plain"}
    secrets = [
        sim.provider.create(SECRET, {**plain, "name": f"s{index}"}, marker(f"s{index}")) for index in range(3)
    ]
    generic = sim.provider.create(
        "OS::Barbican::GenericContainer",
        {
            "secrets": [
                {"name": "one", "ref": secrets[0].physical_id},
                {"name": "two", "ref": secrets[1].physical_id},
            ]
        },
        marker("generic"),
    )
    certificate = sim.provider.create(
        "OS::Barbican::CertificateContainer",
        {"certificate_ref": secrets[0].physical_id, "private_key_ref": secrets[1].physical_id},
        marker("certificate"),
    )
    rsa = sim.provider.create(
        "OS::Barbican::RSAContainer",
        {"private_key_ref": secrets[1].physical_id, "public_key_ref": secrets[2].physical_id},
        marker("rsa"),
    )

    assert generic.attributes["secret_refs"] == {"one": secrets[0].physical_id, "two": secrets[1].physical_id}
    assert set(certificate.attributes["secret_refs"]) == {"certificate", "private_key"}
    assert set(sim.provider.observe("OS::Barbican::RSAContainer", [rsa.physical_id])) == {rsa.physical_id}
    assert set(sim.provider.observe(SECRET, [secret.physical_id for secret in secrets])) == {
        secret.physical_id for secret in secrets
    }
    sim.provider.delete("OS::Barbican::GenericContainer", generic.physical_id)
    with pytest.raises(NotFound):
        sim.provider.delete("OS::Barbican::GenericContainer", generic.physical_id)
    with pytest.raises(Permanent, match="doesn't exist"):
        sim.provider.create(
            "OS::Barbican::GenericContainer",
            {"secrets": [{"name": "gone", "ref": generic.physical_id.replace("containers", "secrets")}]},
            marker("broken"),
        )


def test_an_order_is_pending_then_active_and_shows_what_it_made(sim: CloudUnderTest) -> None:
    key = sim.provider.create(
        "OS::Barbican::Order",
        {"type": "key", "algorithm": "aes", "bit_length": 256, "mode": "cbc"},
        marker("key"),
    )
    pair = sim.provider.create(
        "OS::Barbican::Order", {"type": "asymmetric", "algorithm": "rsa", "bit_length": 2048}, marker("pair")
    )

    assert key.status is LiveStatus.IN_PROGRESS and key.attributes["secret_ref"] is None
    sim.clock.advance(60)
    seen = sim.provider.observe("OS::Barbican::Order", [key.physical_id, pair.physical_id])
    assert seen[key.physical_id].status is LiveStatus.READY
    assert "/secrets/" in seen[key.physical_id].attributes["secret_ref"]
    assert "/containers/" in seen[pair.physical_id].attributes["container_ref"]
    found = sim.provider.find_by_marker("OS::Barbican::Order", pair.marker or marker("none"))
    assert found is not None and found.physical_id == pair.physical_id
    with pytest.raises(Permanent, match="needs algorithm"):
        sim.provider.create("OS::Barbican::Order", {"type": "key"}, marker("bad"))
