"""Which templates of the community corpus converge on the simulated cloud, each with its reason.

    python -m bench.corpus_converge [--corpus DIR] [--only SUBSTRING ...] [--timeout 90] [--json FILE]

Every corpus file that declares resources becomes its own git repository of two stacks: `base`,
which makes what a real project would already hold (a key pair, a private network and subnet
routed to the public network, a security group, the region RegionOne, a host enrolled in Blazar
when the template leases one, and the key pair in every other region the template's remote stacks
name, which the simulated cloud then serves too), and `corpus`, the template itself. The template's
parameters are given values naming what the cloud holds: images, flavors, the public network and
Keystone's default domain by the names the simulated cloud is seeded with, the key pair,
network, subnet, security group and region through `from_stack` wiring to `base`, and plain
values for the rest. `reconciler run` then runs in its own process on a fresh SQLite database and
simulated cloud, with the agent API on so the simulated cloud's agents run the servers' software
deployments; the stack's status and reasons are read from the notes the daemon writes
(`reconciler stacks`).

Each file ends CONVERGED, FAILED, INVALID or TIMEOUT with the first line that says why, or
EXCLUDED with the reason no faithful cloud could converge it (the `EXCLUDED` table: each entry is
one named file and why). The figure is converged / (files with resources - excluded).

OpenSSH's server is installed first when missing (`tests/ensure_sshd.sh`): the simulated servers
of templates that ssh to one another run it. So is e2fsprogs' FUSE driver (`tests/ensure_fuse2fs.sh`):
the simulated servers of templates that format and mount their volumes mount them with it.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import yaml

from providers.simulated.seeds import IMAGES, PUBLIC_NETWORK

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
IMAGE = IMAGES[0]
FLAVOR = "m1.small"
AT_REST = ("CONVERGED", "FAILED", "INVALID")
PASSWORD = "Pass1234"  # upper, lower and digits within the 6 to 8 characters the strictest asks

# Environments the corpus ships for a template under another name, relative to the template.
ENVIRONMENTS = {
    "heat-templates-hot/mistral/templates/autoscaling_using_mistral.yaml": (
        "../nova_networking_server_with_ip_env.yaml"
    ),
}

# Parameters whose name misleads the rules above, by file (None keeps the template's default).
_PUBLIC_ROUTER = {"network_name": PUBLIC_NETWORK}
OVERRIDES: dict[str, dict[str, Any]] = {
    "heat-tempest-plugin-scenario/remote_nested_base.yaml": _PUBLIC_ROUTER,
    "heat-tempest-plugin-scenario/remote_nested_intermediate.yaml": _PUBLIC_ROUTER,
    "heat-tempest-plugin-scenario/remote_nested_root.yaml": _PUBLIC_ROUTER,
    "heat-tempest-plugin-scenario/test_base_resources.yaml": {"key_name": None},  # a key pair it makes
    "heat-templates-hot/resource_group/random.yaml": {"lengths": "8,16"},
    "heat-templates-hot/keystone/keystone_user.yaml": {"user_groups": ""},  # groups that must exist
    "heat-templates-hot/blazar/blazar_host.yaml": {"name": "compute-1"},  # a hypervisor the cloud has
    # its default 512 is outside the [128, 256] Heat allows: a key size the cloud's cipher takes
    "heat-templates-hot/server_with_encrpyted_volume.yaml": {"encryption_key_size": 256},
}

# Seconds more than --timeout a file may take, by file, where the template itself waits.
EXTRA_SECONDS = {
    "heat-templates-hot/autohealing/autohealing_server.yaml": 60.0,  # its alarm_cache_wait waits 60 s
}

_OUTSIDE = "reads files of the heat-agents repository, which is not part of the corpus"
_PINNED = "its image parameter is pinned by allowed_values to F18-*-cfntools images"

# Files no faithful cloud could converge, each with its reason.
EXCLUDED: dict[str, str] = {
    "heat-tempest-plugin-scenario/app_server_neutron.yaml": "OS::Test::WebAppConfig is a test-only type",
    "heat-tempest-plugin-scenario/octavia_lbaas.yaml": "OS::Test::PoolMember is a test-only type",
    "heat-tempest-plugin-scenario/test_server_software_config.yaml": (
        "its get_file paths ('/cfg1.sh') are files the test passes through the API, not corpus files"
    ),
    "heat-templates-hot/F18/NovaInstanceWithCinderVolume_Native.yaml": _PINNED,
    "heat-templates-hot/F18/WordPress_Native.yaml": _PINNED,
    "heat-templates-hot/F18/WordPress_NoKey.yaml": _PINNED,
    "heat-templates-hot/mistral/templates/autoscaling_using_mistral.yaml": (
        "upstream mistake: it passes security_group to server_with_ip.yaml, which declares no such "
        "parameter (Heat refuses it too)"
    ),
    "heat-tempest-plugin-scenario/lb_member.yaml": (
        "its pool names a load balancer pool that must already exist"
    ),
    "heat-tempest-plugin-scenario/test_volumes_create_from_backup.yaml": (
        "its backup_id names a backup that must already exist"
    ),
    "heat-templates-hot/lb_server.yaml": "its pool_id names a load balancer pool that must already exist",
    "heat-templates-hot/resource_group/volume_with_attachment.yaml": (
        "its instance_id names a server that must already exist"
    ),
    "heat-templates-hot/software-config/example-templates/example-chef-template.yaml": (
        "upstream mistake: its StructuredConfig config is a list, not a map (Heat's stack create refuses it)"
    ),
    "heat-templates-hot/octavia/servers_with_octavia.yaml": (
        "upstream mistake: its health monitor sets max_retries_down, which Heat's HealthMonitor does not have"
    ),
    "heat-templates-hot/external_resource.yaml": "its external_id names a server that must already exist",
    **{
        f"heat-templates-hot/software-config/boot-config/templates/install_config_agent_{name}.yaml": _OUTSIDE
        for name in ("centos7_rdo", "fedora_pip", "fedora_yum", "test_image", "ubuntu_pip")
    },
}

BASE_TEMPLATE: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "description": "What a project holds before the corpus template is applied.",
    "resources": {
        "key": {"type": "OS::Nova::KeyPair", "properties": {"name": "corpus-key"}},
        "net": {"type": "OS::Neutron::Net", "properties": {"name": "private"}},
        "subnet": {
            "type": "OS::Neutron::Subnet",
            "properties": {
                "name": "private-subnet",
                "network": {"get_resource": "net"},
                "cidr": "10.0.0.0/24",
            },
        },
        "router": {
            "type": "OS::Neutron::Router",
            "properties": {"external_gateway_info": {"network": PUBLIC_NETWORK}},
        },
        "router_interface": {
            "type": "OS::Neutron::RouterInterface",
            "properties": {"router": {"get_resource": "router"}, "subnet": {"get_resource": "subnet"}},
        },
        "security_group": {"type": "OS::Neutron::SecurityGroup", "properties": {"name": "corpus-sg"}},
        "region": {"type": "OS::Keystone::Region", "properties": {"id": "RegionOne"}},
    },
    "outputs": {
        "key_name": {"value": {"get_resource": "key"}},
        "net_id": {"value": {"get_resource": "net"}},
        "net_name": {"value": {"get_attr": ["net", "name"]}},
        "subnet_id": {"value": {"get_resource": "subnet"}},
        "security_group": {"value": {"get_resource": "security_group"}},
        "region": {"value": {"get_resource": "region"}},
    },
}


# What a project holds for templates that lease reservable capacity: Blazar refuses a lease while
# it holds no host, and hosts are enrolled by an administrator beforehand.
RESERVABLE_HOST = {"type": "OS::Blazar::Host", "properties": {"name": "compute-3"}}
HOME_REGION = "RegionOne"


def other_regions(document: dict[str, Any]) -> list[str]:
    """The regions besides the home one that the template's OS::Heat::Stack contexts name."""
    resources = document.get("resources") or {}
    named = (
        ((r.get("properties") or {}).get("context") or {}).get("region_name")
        for r in resources.values()
        if isinstance(r, dict) and r.get("type") == "OS::Heat::Stack"
    )
    return sorted({region for region in named if isinstance(region, str) and region != HOME_REGION})


def _regional_key(region: str) -> dict[str, Any]:
    """The project's key pair in another region (Nova's key pairs are per region), made there by a
    nested stack of the base stack."""
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {"key": {"type": "OS::Nova::KeyPair", "properties": {"name": "corpus-key"}}},
    }
    return {
        "type": "OS::Heat::Stack",
        "properties": {"context": {"region_name": region}, "template": yaml.safe_dump(template)},
    }


def base_template(document: dict[str, Any]) -> dict[str, Any]:
    """The base stack for one corpus template: BASE_TEMPLATE, with a reservable host for a lease and
    the key pair in every other region the template builds in."""
    resources = document.get("resources") or {}
    leases = any(isinstance(r, dict) and r.get("type") == "OS::Blazar::Lease" for r in resources.values())
    extra: dict[str, Any] = {"reservable_host": RESERVABLE_HOST} if leases else {}
    extra.update({f"key_{region}": _regional_key(region) for region in other_regions(document)})
    if not extra:
        return BASE_TEMPLATE
    return {**BASE_TEMPLATE, "resources": {**BASE_TEMPLATE["resources"], **extra}}


@dataclass(frozen=True)
class Outcome:
    file: str
    outcome: str
    reason: str
    seconds: float


def _from_base(output: str) -> dict[str, str]:
    return {"from_stack": "base", "output": output}


# Parameter names that ask for something the cloud holds, and the value naming it, first match wins.
HELD: tuple[tuple[str, Any], ...] = (
    (r"image", IMAGE),
    (r"flavor|instance_type", FLAVOR),
    (r"(^|_)key(_name)?$|keypair|ssh_key", _from_base("key_name")),
    (r"(public|external|floating)\w*net|net\w*(public|external)", PUBLIC_NETWORK),
    (r"subnet", _from_base("subnet_id")),
    (r"^(private_)?net(work)?_name$|^private_net$", _from_base("net_name")),
    (r"^(private_)?net(work)?(_id)?$", _from_base("net_id")),
    (r"sec_group|security_group", _from_base("security_group")),
    (r"^hosts$", "compute-1,compute-2"),  # the simulated cloud's hypervisors
    (r"domain$", "default"),  # Keystone's default domain
    (r"_role$", "member"),  # one of Keystone's standard roles
    (r"(_role|default)_project$", "demo"),  # the project the simulated cloud issues tokens for
    (r"^region$", _from_base("region")),
)

# Plain values by parameter name, then by type, for what names nothing in the cloud.
PLAIN_BY_NAME: tuple[tuple[str, Any], ...] = (
    (r"timeout", 60),
    (r"password|_pass$", PASSWORD),
    (r"email", "admin@example.org"),
    (r"cidr", "10.1.0.0/24"),
    (r"url", "http://192.0.2.10:5000/v3"),
)
PLAIN_BY_TYPE = {"number": 1, "boolean": True, "json": {}, "comma_delimited_list": "one,two"}


def parameter_value(name: str, schema: dict[str, Any]) -> Any:
    """A value for parameter `name` naming what the cloud holds, or None to keep its default."""
    lowered = name.lower()
    allowed = _allowed_values(schema)
    if allowed is not None:
        return None if "default" in schema else allowed[0]
    addressing = re.search(r"cidr|gateway|pool_start|pool_end", lowered) is not None
    held = (
        None if addressing else next((value for pattern, value in HELD if re.search(pattern, lowered)), None)
    )
    if held is not None or "default" in schema:
        return held
    kind = str(schema.get("type", "string")).lower()
    plain = next((value for pattern, value in PLAIN_BY_NAME if re.search(pattern, lowered)), None)
    if plain is None:
        plain = PLAIN_BY_TYPE.get(kind, f"corpus-{lowered.replace('_', '-')}")
    return _fitted(plain, schema)


def _fitted(value: Any, schema: dict[str, Any]) -> Any:
    """The first candidate for a plain string that meets the parameter's length and patterns."""
    if not isinstance(value, str):
        return value
    candidates = [value, value.replace("-", "_"), re.sub(r"[^0-9A-Za-z]", "", value), "Pass12#$word"]
    for candidate in candidates:
        fitted = _length_fitted(candidate, schema)
        if all(re.fullmatch(pattern, fitted) for pattern in _patterns(schema)):
            return fitted
    return _length_fitted(value, schema)


def _length_fitted(value: str, schema: dict[str, Any]) -> str:
    for constraint in schema.get("constraints") or []:
        length = constraint.get("length") if isinstance(constraint, dict) else None
        if isinstance(length, dict):
            value = value[: int(length.get("max", len(value)))]
            value = value.ljust(int(length.get("min", 0)), "x")
    return value


def _patterns(schema: dict[str, Any]) -> list[str]:
    constraints = schema.get("constraints") or []
    return [str(c["allowed_pattern"]) for c in constraints if isinstance(c, dict) and "allowed_pattern" in c]


def _allowed_values(schema: dict[str, Any]) -> list[Any] | None:
    for constraint in schema.get("constraints") or []:
        if isinstance(constraint, dict) and "allowed_values" in constraint:
            return list(constraint["allowed_values"])
    return None


def corpus_templates(corpus: Path) -> list[Path]:
    """Every corpus file that is a HOT template declaring resources, sorted."""
    found = []
    for path in sorted(corpus.rglob("*.yaml")):
        try:
            document = yaml.load(path.read_text(), Loader=yaml.CSafeLoader)
        except (yaml.YAMLError, UnicodeDecodeError):
            continue
        if isinstance(document, dict) and "heat_template_version" in document and document.get("resources"):
            found.append(path)
    return found


def _repository(template: Path, corpus: Path, directory: Path) -> None:
    """A git repository holding the template's corpus folder, the base stack and reconciler.yaml."""
    group = template.relative_to(corpus).parts[0]
    shutil.copytree(corpus / group, directory / "corpus")
    inside = template.relative_to(corpus / group)
    document = yaml.load(template.read_text(), Loader=yaml.CSafeLoader)
    (directory / "base.yaml").write_text(yaml.safe_dump(base_template(document), sort_keys=False))
    parameters = {}
    overrides = OVERRIDES.get(str(template.relative_to(corpus)), {})
    for name, schema in (document.get("parameters") or {}).items():
        value = (
            overrides[name]
            if name in overrides
            else parameter_value(name, schema if isinstance(schema, dict) else {})
        )
        if value is not None:
            parameters[name] = value
    stack: dict[str, Any] = {"template": f"corpus/{inside}", "parameters": parameters}
    environment = _environment(template, corpus)
    if environment is not None:
        stack["environment"] = [f"corpus/{environment.relative_to(corpus / group)}"]
    config = {
        "defaults": {"cloud": "sim", "auto_apply": True, "prune": True},
        "stacks": {"base": {"template": "base.yaml"}, "corpus": stack},
    }
    (directory / "reconciler.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    for command in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "corpus template"]):
        subprocess.run(
            ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.org", *command],
            cwd=directory,
            check=True,
        )


def _environment(template: Path, corpus: Path) -> Path | None:
    """The environment the corpus ships for a template: named in ENVIRONMENTS, or `NAME_env.yaml`."""
    named = ENVIRONMENTS.get(str(template.relative_to(corpus)))
    if named is not None:
        return (template.parent / named).resolve()
    beside = template.with_name(f"{template.stem}_env.yaml")
    return beside if beside.is_file() else None


def converge(template: Path, corpus: Path, timeout: float) -> Outcome:
    name = str(template.relative_to(corpus))
    if name in EXCLUDED:
        return Outcome(name, "EXCLUDED", EXCLUDED[name], 0.0)
    with tempfile.TemporaryDirectory(prefix="corpus-") as scratch:
        directory = Path(scratch) / "repo"
        directory.mkdir()
        _repository(template, corpus, directory)
        command = [sys.executable, "-m", "reconciler.cli.main", "run", "--repo", str(directory)]
        command += ["--database", f"sqlite:///{scratch}/state.db", "--state-dir", f"{scratch}/state"]
        command += ["--listen", "127.0.0.1:0", "--agent-listen", "127.0.0.1:0", "--log-level", "warning"]
        regions = other_regions(yaml.load(template.read_text(), Loader=yaml.CSafeLoader))
        if regions:
            command += ["--sim-regions", ",".join(regions)]  # the simulated cloud serves them too
        started = time.perf_counter()
        daemon = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            status, reason = _settled(directory, started + timeout)
        finally:
            daemon.terminate()
            try:
                _, errors = daemon.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                daemon.kill()
                _, errors = daemon.communicate()
        seconds = time.perf_counter() - started
    if status is None:
        last = [line for line in errors.splitlines() if line.strip()]
        return Outcome(name, "TIMEOUT", reason or (last[-1][:300] if last else "no status"), seconds)
    return Outcome(name, status, reason, seconds)


def _settled(directory: Path, deadline: float) -> tuple[str | None, str]:
    """The corpus stack's status once it is at rest (CONVERGED, FAILED or INVALID) with its first
    reason, read from the notes the daemon writes; (None, last reason) when the deadline passes."""
    reason = ""
    while time.perf_counter() < deadline:
        time.sleep(2.0)
        listed = subprocess.run(
            [
                sys.executable,
                "-m",
                "reconciler.cli.main",
                "stacks",
                "--repo",
                str(directory),
                "--format",
                "json",
            ],
            check=False,
            capture_output=True,
            text=True,
        )
        if listed.returncode != 0:
            continue
        stacks = {entry["stack"]: entry for entry in json.loads(listed.stdout)["stacks"]}
        corpus = stacks.get("corpus", {})
        reasons = corpus.get("reasons") or []
        reason = str(reasons[0])[:300] if reasons else ""
        if corpus.get("status") in AT_REST:
            return str(corpus["status"]), reason
        if stacks.get("base", {}).get("status") in ("FAILED", "INVALID"):
            return "FAILED", f"base stack: {stacks['base'].get('reasons')}"
    return None, reason


ENSURE_SSHD = Path(__file__).resolve().parents[1] / "tests" / "ensure_sshd.sh"
ENSURE_FUSE2FS = ENSURE_SSHD.with_name("ensure_fuse2fs.sh")


def ensure_sshd() -> None:
    """Install OpenSSH's server when missing, as the test command does: simulated servers that ssh
    to one another (the ssh-copy-id example) need it; without it they refuse connections."""
    subprocess.run(["bash", str(ENSURE_SSHD)], stdout=subprocess.DEVNULL, check=False)


def ensure_fuse2fs() -> None:
    """Install fuse2fs when missing, as the test command does: simulated servers that mount their
    volumes (the volume scenarios) need it; without it their volumes are no disks."""
    subprocess.run(["bash", str(ENSURE_FUSE2FS)], stdout=subprocess.DEVNULL, check=False)


def main() -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        help="only files whose corpus path contains this (repeat it to name several)",
    )
    parser.add_argument("--timeout", type=float, default=90.0, help="seconds each file may take to settle")
    parser.add_argument("--json", type=Path, help="write every outcome to this file as JSON")
    arguments = parser.parse_args()
    ensure_sshd()
    ensure_fuse2fs()
    outcomes = []
    for template in corpus_templates(arguments.corpus):
        name = str(template.relative_to(arguments.corpus))
        if arguments.only and not any(part in name for part in arguments.only):
            continue
        outcome = converge(template, arguments.corpus, arguments.timeout + EXTRA_SECONDS.get(name, 0.0))
        outcomes.append(outcome)
        print(f"{outcome.outcome:10} {outcome.seconds:6.1f}s {outcome.file}  {outcome.reason}", flush=True)
    tally = Counter(outcome.outcome for outcome in outcomes)
    counted = len(outcomes) - tally["EXCLUDED"]
    share = tally["CONVERGED"] / counted if counted else 0.0
    print(f"converged {tally['CONVERGED']} of {counted} counted ({share:.0%}); {dict(sorted(tally.items()))}")
    if arguments.json:
        arguments.json.write_text(json.dumps([asdict(outcome) for outcome in outcomes], indent=1))


if __name__ == "__main__":
    main()
