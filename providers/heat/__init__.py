"""Native Heat resource types that need no cloud (OS::Heat::None, Value, RandomString, TestResource).

May import `providers.interface`; never state, the engine or a cloud SDK.

Nested-stack types (OS::Heat::ResourceGroup, AutoScalingGroup, ResourceChain, Stack and template
resources) are not served here: each is a stack of its own, which the engine converges itself.
"""

from providers.heat.native_provider import NativeHeatProvider
from providers.heat.native_types import NATIVE_TYPES

__all__ = ["NATIVE_TYPES", "NativeHeatProvider"]
