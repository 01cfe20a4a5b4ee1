"""Block storage types served by the cloud providers: OS::Cinder::Volume, VolumeAttachment, VolumeType,
EncryptedVolumeType, QoSSpecs, QoSAssociation and Quota.

Their schemas are data (`schemas/resource_types/cinder.yaml`). A volume's size may only grow
(Cinder extends, never shrinks); the provider rejects a smaller size as a permanent error rather
than replacing a volume and losing its data.
"""

from __future__ import annotations

from providers.catalog.declaring import from_schema

VOLUME = from_schema("OS::Cinder::Volume", asynchronous=True)
VOLUME_ATTACHMENT = from_schema("OS::Cinder::VolumeAttachment", asynchronous=True)

VOLUME_TYPE = from_schema("OS::Cinder::VolumeType")
ENCRYPTED_VOLUME_TYPE = from_schema("OS::Cinder::EncryptedVolumeType")
QOS_SPECS = from_schema("OS::Cinder::QoSSpecs")
QOS_ASSOCIATION = from_schema("OS::Cinder::QoSAssociation")
QUOTA = from_schema("OS::Cinder::Quota")

TYPES = (VOLUME, VOLUME_ATTACHMENT, VOLUME_TYPE, ENCRYPTED_VOLUME_TYPE, QOS_SPECS, QOS_ASSOCIATION, QUOTA)
