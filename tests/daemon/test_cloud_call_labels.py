"""Cloud calls are counted under names a person reads: the service and how the call ended."""

from __future__ import annotations

import pytest

from providers.interface import NotFound, Permanent, Retryable
from reconciler.daemon.cloud_call_labels import outcome_of, service_of


@pytest.mark.parametrize(
    ("type_name", "service"),
    [
        ("OS::Nova::Server", "compute"),
        ("OS::Neutron::Port", "network"),
        ("OS::Cinder::Volume", "volume"),
        ("OS::Glance::WebImage", "image"),
        ("OS::Heat::RandomString", "orchestration"),
        ("OS::Magnum::Cluster", "container-infra"),
        ("OS::Monasca::AlarmDefinition", "monitoring"),
        ("OS::Zun::Container", "zun"),
        ("My::Custom", "other"),
    ],
)
def test_a_resource_type_is_counted_under_its_service(type_name: str, service: str) -> None:
    assert service_of(type_name) == service


@pytest.mark.parametrize(
    ("error", "outcome"),
    [
        (Retryable("409 name in use", conflict=True), "conflict"),
        (Retryable("503 service unavailable", after=2.0), "unavailable"),
        (Permanent("quota exceeded"), "refused"),
        (NotFound("gone"), "not_found"),
        (RuntimeError("a bug"), "error"),
    ],
)
def test_a_failed_call_is_counted_under_how_it_ended(error: Exception, outcome: str) -> None:
    assert outcome_of(error) == outcome
