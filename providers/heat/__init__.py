"""Native Heat resource types that need no cloud (OS::Heat::None, Value, RandomString, ...).

May import `providers.interface`; never state, the engine or a cloud SDK.
"""
