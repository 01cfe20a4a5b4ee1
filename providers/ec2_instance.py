"""AWS::EC2::Instance as Heat serves it on Nova: a server under CloudFormation's property names.
Both providers translate it to and from OS::Nova::Server and make the same calls as for one.

| AWS property | OS::Nova::Server property |
|---|---|
| ImageId, InstanceType, KeyName | image, flavor, key_name |
| AvailabilityZone, UserData | availability_zone, user_data |
| SecurityGroups and SecurityGroupIds | security_groups |
| NetworkInterfaces (port ids, or {NetworkInterfaceId, DeviceIndex}) | networks: ports in DeviceIndex order |
| SubnetId (no NetworkInterfaces) | networks: the subnet's network |
| Tags [{Key, Value}] | metadata |
| NovaSchedulerHints [{Key, Value}] | scheduler_hints (a key given twice holds a list) |
| BlockDeviceMappings [{DeviceName, Ebs: {SnapshotId, VolumeSize, ...}}] | block_device_mapping |

Heat makes a port on SubnetId itself; here Nova makes it on the subnet's network, so the address
may come from another subnet of that network. Every address attribute (PrivateIp, PublicIp,
PrivateDnsName, PublicDnsName) is the server's first address, as in Heat. `Volumes` are not
attached (the create is refused with the reason); the properties Heat does not implement are
accepted and ignored, as Heat does.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from providers.interface import LiveResource, Permanent

TYPE_NAME = "AWS::EC2::Instance"
NO_ADDRESS = "0.0.0.0"
# AWS property -> the OS::Nova::Server property a change of it changes.
NATIVE_NAMES = {"InstanceType": "flavor", "Tags": "metadata", "NetworkInterfaces": "networks",
                "SubnetId": "networks", "ImageId": "image", "KeyName": "key_name"}  # fmt: skip


def nova_properties(properties: Mapping[str, Any], network_of_subnet: Callable[[str], str]) -> dict[str, Any]:
    """The OS::Nova::Server properties an AWS::EC2::Instance stands for."""
    if properties.get("Volumes"):
        raise Permanent("Volumes of AWS::EC2::Instance are not attached: use AWS::EC2::VolumeAttachment")
    groups = [*(properties.get("SecurityGroups") or ()), *(properties.get("SecurityGroupIds") or ())]
    native: dict[str, Any] = {
        "image": properties.get("ImageId"),
        "flavor": properties.get("InstanceType"),
        "key_name": properties.get("KeyName"),
        "availability_zone": properties.get("AvailabilityZone"),
        "user_data": properties.get("UserData") or "",
        "security_groups": groups,
        "networks": _networks(properties, network_of_subnet),
        "metadata": _pairs(properties.get("Tags")),
    }
    hints = _hints(properties.get("NovaSchedulerHints"))
    if hints:
        native["scheduler_hints"] = hints
    mappings = _block_devices(properties.get("BlockDeviceMappings"))
    if mappings:
        native["block_device_mapping"] = mappings
    return {name: value for name, value in native.items() if value is not None}


def native_changes(changed: frozenset[str]) -> frozenset[str]:
    return frozenset(NATIVE_NAMES[name] for name in changed if name in NATIVE_NAMES)


def aws_view(live: LiveResource) -> LiveResource:
    """A live server read back under the AWS type's property and attribute names."""
    native = live.properties
    metadata = native.get("metadata") or {}
    properties = {
        "ImageId": native.get("image"),
        "InstanceType": native.get("flavor"),
        "KeyName": native.get("key_name"),
        "Tags": [{"Key": key, "Value": value} for key, value in metadata.items()] if native else None,
    }
    address = live.attributes.get("first_address") or NO_ADDRESS
    show = live.attributes.get("show") or {}
    attributes = {
        "AvailabilityZone": show.get("OS-EXT-AZ:availability_zone") if isinstance(show, Mapping) else None,
        **{name: address for name in ("PrivateIp", "PublicIp", "PrivateDnsName", "PublicDnsName")},
        "show": show,
    }
    shown = {key: value for key, value in properties.items() if value is not None} if native else {}
    return dataclasses.replace(live, type=TYPE_NAME, properties=shown, attributes=attributes)


def _networks(properties: Mapping[str, Any], network_of_subnet: Callable[[str], str]) -> list[dict[str, Any]]:
    interfaces = properties.get("NetworkInterfaces") or []
    if interfaces:
        entries = [
            entry if isinstance(entry, Mapping) else {"NetworkInterfaceId": entry, "DeviceIndex": index}
            for index, entry in enumerate(interfaces)
        ]
        ordered = sorted(entries, key=lambda entry: int(entry.get("DeviceIndex", 0)))
        return [{"port": entry["NetworkInterfaceId"]} for entry in ordered]
    subnet = properties.get("SubnetId")
    return [{"network": network_of_subnet(str(subnet))}] if subnet else []


def _pairs(pairs: Any) -> dict[str, str] | None:
    if pairs is None:
        return None
    return {str(pair["Key"]): str(pair["Value"]) for pair in pairs}


def _hints(pairs: Any) -> dict[str, Any]:
    hints: dict[str, Any] = {}
    for pair in pairs or ():
        key, value = str(pair["Key"]), pair["Value"]
        if key in hints:
            held = hints[key]
            hints[key] = [*(held if isinstance(held, list) else [held]), value]
        else:
            hints[key] = value
    return hints


def _block_devices(mappings: Any) -> list[dict[str, Any]]:
    devices = []
    for mapping in mappings or ():
        ebs = mapping.get("Ebs") or {}
        if not ebs:
            continue
        device: dict[str, Any] = {"device_name": mapping["DeviceName"]}
        if ebs.get("SnapshotId"):
            device["snapshot_id"] = ebs["SnapshotId"]
        if ebs.get("VolumeSize"):
            device["volume_size"] = int(ebs["VolumeSize"])
        device["delete_on_termination"] = bool(ebs.get("DeleteOnTermination", True))
        devices.append(device)
    return devices
