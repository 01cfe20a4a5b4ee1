"""OS::Cinder::VolumeType and OS::Cinder::EncryptedVolumeType against the simulated cloud over HTTP,
through the openstacksdk client, and every request they send is one docs/openstack-api.md documents.
"""

from __future__ import annotations

import pytest

from providers.interface import LiveStatus, Permanent, ProviderError, Retryable
from tests.openstack.conftest import CloudUnderTest
from tests.openstack.documented_requests import undocumented_requests
from tests.openstack.scenario import marker

VOLUME_TYPE = "OS::Cinder::VolumeType"
ENCRYPTED = "OS::Cinder::EncryptedVolumeType"
VOLUME = "OS::Cinder::Volume"
LUKS = {"provider": "luks", "control_location": "front-end", "cipher": "aes-xts-plain64", "key_size": 256}


def test_a_volume_type_is_made_with_extra_specs_found_by_its_marker_and_seen_by_the_sdk(
    sim: CloudUnderTest,
) -> None:
    fast = marker("fast")
    created = sim.provider.create(
        VOLUME_TYPE, {"name": "fast", "metadata": {"volume_backend_name": "ssd"}, "is_public": True}, fast
    )

    seen = sim.provider.observe(VOLUME_TYPE, [created.physical_id])[created.physical_id]
    found = sim.provider.find_by_marker(VOLUME_TYPE, fast)
    sdk_view = sim.provider.connection.block_storage.get_type(created.physical_id)

    assert seen.status is LiveStatus.READY and seen.marker == fast
    assert seen.properties["metadata"] == {"volume_backend_name": "ssd"}
    assert found is not None and found.physical_id == created.physical_id
    assert sdk_view.name == "fast" and sdk_view.extra_specs["volume_backend_name"] == "ssd"


def test_a_volume_type_changes_name_specs_and_project_access_in_place(sim: CloudUnderTest) -> None:
    created = sim.provider.create(
        VOLUME_TYPE, {"name": "gold", "is_public": False, "metadata": {"a": "1", "b": "2"}}, marker("gold")
    )

    sim.provider.update(
        VOLUME_TYPE,
        created.physical_id,
        {"name": "platinum", "is_public": False, "metadata": {"a": "3"}, "projects": ["p1", "p2"]},
        frozenset({"name", "metadata", "projects"}),
    )
    sim.provider.update(
        VOLUME_TYPE,
        created.physical_id,
        {"name": "platinum", "is_public": False, "metadata": {"a": "3"}, "projects": ["p2"]},
        frozenset({"projects"}),
    )

    seen = sim.provider.observe(VOLUME_TYPE, [created.physical_id])[created.physical_id]
    assert seen.properties["name"] == "platinum"
    assert seen.properties["metadata"] == {"a": "3"}
    assert seen.properties["projects"] == ["p2"]
    assert seen.marker is not None


def test_a_taken_volume_type_name_fails_with_the_reason_instead_of_waiting(sim: CloudUnderTest) -> None:
    sim.provider.connection.block_storage.create_type(name="bronze")

    with pytest.raises(Permanent, match=r"bronze.*already exists"):
        sim.provider.create(VOLUME_TYPE, {"name": "bronze"}, marker("bronze"))


def test_an_encrypted_type_encrypts_the_volumes_made_of_it_and_its_spec_is_kept_while_in_use(
    sim: CloudUnderTest,
) -> None:
    volume_type = sim.provider.create(VOLUME_TYPE, {"name": "secret"}, marker("secret"))
    encrypted = sim.provider.create(ENCRYPTED, {"volume_type": "secret", **LUKS}, marker("secret_enc"))
    volume = sim.provider.create(VOLUME, {"size": 1, "volume_type": encrypted.physical_id}, marker("data"))
    sim.clock.advance(60)

    seen = sim.provider.observe(ENCRYPTED, [encrypted.physical_id])[encrypted.physical_id]
    assert encrypted.physical_id == volume_type.physical_id
    assert seen.properties == {"volume_type": volume_type.physical_id, **LUKS}
    assert sim.provider.connection.block_storage.get_volume(volume.physical_id).is_encrypted
    with pytest.raises(Permanent, match="in use"):
        sim.provider.update(
            ENCRYPTED, encrypted.physical_id, {**LUKS, "key_size": 128}, frozenset({"key_size"})
        )

    sim.provider.delete(VOLUME, volume.physical_id)
    sim.provider.update(ENCRYPTED, encrypted.physical_id, {**LUKS, "key_size": 128}, frozenset({"key_size"}))
    sim.provider.delete(ENCRYPTED, encrypted.physical_id)
    sim.provider.delete(VOLUME_TYPE, volume_type.physical_id)

    assert sim.provider.observe(ENCRYPTED, [encrypted.physical_id]) == {}
    assert sim.provider.observe(VOLUME_TYPE, [volume_type.physical_id]) == {}


def test_a_volume_of_a_type_the_cloud_lacks_is_refused_and_a_type_in_use_is_kept(sim: CloudUnderTest) -> None:
    volume_type = sim.provider.create(VOLUME_TYPE, {"name": "busy"}, marker("busy"))
    sim.provider.create(VOLUME, {"size": 1, "volume_type": "busy"}, marker("busy_data"))

    with pytest.raises(ProviderError, match="Volume type with name nowhere could not be found"):
        sim.provider.create(VOLUME, {"size": 1, "volume_type": "nowhere"}, marker("lost"))
    with pytest.raises((Permanent, Retryable), match="still in use"):
        sim.provider.delete(VOLUME_TYPE, volume_type.physical_id)


def test_every_volume_type_request_is_documented(sim: CloudUnderTest) -> None:
    volume_type = sim.provider.create(
        VOLUME_TYPE, {"name": "doc", "is_public": False, "metadata": {"k": "v"}}, marker("doc")
    )
    sim.provider.update(
        VOLUME_TYPE,
        volume_type.physical_id,
        {"name": "doc2", "is_public": False, "metadata": {"j": "w"}, "projects": ["p"]},
        frozenset({"name", "metadata", "projects"}),
    )
    encrypted = sim.provider.create(ENCRYPTED, {"volume_type": "doc2", **LUKS}, marker("doc_enc"))
    sim.provider.update(
        ENCRYPTED, encrypted.physical_id, {**LUKS, "cipher": "aes-cbc-essiv"}, frozenset({"cipher"})
    )
    sim.provider.observe(VOLUME_TYPE, [volume_type.physical_id])
    sim.provider.observe(ENCRYPTED, [encrypted.physical_id])
    sim.provider.find_by_marker(VOLUME_TYPE, marker("nothing"))
    sim.provider.delete(ENCRYPTED, encrypted.physical_id)
    sim.provider.delete(VOLUME_TYPE, volume_type.physical_id)

    assert undocumented_requests(sim) == []
