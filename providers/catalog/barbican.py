"""Key manager types served by the cloud providers: OS::Barbican::Secret, Order (PENDING, then
ACTIVE) and the generic, certificate and RSA containers.

Their schemas are data (`schemas/resource_types/barbican.yaml`); nothing of them changes in place.
"""

from __future__ import annotations

from providers.catalog.declaring import from_schema

SECRET = from_schema("OS::Barbican::Secret")
GENERIC_CONTAINER = from_schema("OS::Barbican::GenericContainer")
CERTIFICATE_CONTAINER = from_schema("OS::Barbican::CertificateContainer")
RSA_CONTAINER = from_schema("OS::Barbican::RSAContainer")

ORDER = from_schema("OS::Barbican::Order", asynchronous=True)

TYPES = (SECRET, GENERIC_CONTAINER, CERTIFICATE_CONTAINER, RSA_CONTAINER, ORDER)
