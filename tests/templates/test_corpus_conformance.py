"""Conformance over the community corpus: every file is a case, and nothing is skipped silently.

- a template (it has `heat_template_version`) must validate, with the environments of its folder
  that map a type it uses; the few upstream files that cannot, fail with the clear message listed
  in EXPECTED_FAILURES;
- a CloudFormation-format template must be refused with a message saying so;
- an environment must parse, and every template file its registry maps to must validate;
- any other file is skipped with the reason shown in pytest's summary (`-ra`).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from reconciler.templates import DirectorySource, TemplateError, load_stack
from reconciler.templates.environment import SECTIONS as ENVIRONMENT_SECTIONS
from reconciler.templates.limits import Limits
from reconciler.templates.loading import load_environments

CORPUS = Path(os.environ.get("RECONCILER_CORPUS", Path(__file__).resolve().parents[3] / "shared" / "corpus"))

OUTSIDE_TREE = "escapes the repository tree"
BOOT_CONFIG = "heat-templates-hot/software-config/boot-config/templates"
EXPECTED_FAILURES = {
    # Upstream reads files of the heat-agents repository, which is not part of this corpus.
    **{
        f"{BOOT_CONFIG}/install_config_agent_{flavour}.yaml": OUTSIDE_TREE
        for flavour in ("centos7_rdo", "fedora_pip", "fedora_yum", "test_image", "ubuntu_pip")
    },
    # Upstream bug: the member template's parameter is security_group_name (Heat rejects it too).
    "heat-templates-hot/mistral/templates/autoscaling_using_mistral.yaml": "Unknown Property security_group",
    # Tempest passes these files by absolute name in its files map; in a repository they are missing.
    "heat-tempest-plugin-scenario/test_server_software_config.yaml": "is an absolute path",
    # Tempest maps these test types in an environment it writes at run time; without it Heat
    # answers the same.
    "heat-tempest-plugin-scenario/app_server_neutron.yaml": (
        "The Resource Type (OS::Test::WebAppConfig) could not be found."
    ),
    "heat-tempest-plugin-scenario/octavia_lbaas.yaml": (
        "The Resource Type (OS::Test::PoolMember) could not be found."
    ),
    # Heat's Octavia health monitor has no max_retries_down property.
    "heat-templates-hot/octavia/servers_with_octavia.yaml": "Unknown Property max_retries_down",
    # StructuredConfig's config is a map; this example gives a list. Heat's template-validate does
    # not check property values (it says valid); its stack create refuses it ("is not a map").
    "heat-templates-hot/software-config/example-templates/example-chef-template.yaml": "is not a map",
    # The encryption key size defaults to 512 where the type allows 128 or 256: Heat's stack create
    # refuses the default once get_param is resolved; its template-validate does not look.
    "heat-templates-hot/server_with_encrpyted_volume.yaml": (
        'resources.cinder_encryption_vol_type.properties.key_size: "512" is not an allowed value [128, 256]'
    ),
}
# Where this validator's verdict differs from Heat's `template validate`, and why.
DIFFERS_FROM_HEAT = {
    # Heat's template-validate builds its stack with strict_validate=False, so each resource's
    # Properties.validate(with_value=False) checks property names only, never a value's type; stack
    # create validates with values and refuses the list ('"[...]" is not a map'), as this does.
    "heat-templates-hot/software-config/example-templates/example-chef-template.yaml": (
        "Heat's template-validate checks property names only (strict_validate=False); its stack create "
        "refuses the list"
    ),
    "heat-templates-hot/server_with_encrpyted_volume.yaml": (
        "Heat's template-validate checks property names only (strict_validate=False); its stack create "
        "refuses the parameter's default 512"
    ),
}
CFN_MESSAGE = "CloudFormation-format templates are not supported"
TEMPLATE_SUFFIXES = (".yaml", ".yml", ".template", ".json")


def _corpus_files() -> list[str]:
    if not CORPUS.is_dir():
        return []
    return sorted(path.relative_to(CORPUS).as_posix() for path in CORPUS.rglob("*") if path.is_file())


def _kind(path: str) -> str:
    if not path.endswith(TEMPLATE_SUFFIXES):
        return "data"
    try:
        data = yaml.safe_load((CORPUS / path).read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError):
        return "broken"
    if isinstance(data, dict) and "heat_template_version" in data:
        return "template"
    if isinstance(data, dict) and ("HeatTemplateFormatVersion" in data or "AWSTemplateFormatVersion" in data):
        return "cfn"
    if isinstance(data, dict) and data and set(data) <= ENVIRONMENT_SECTIONS:
        return "environment"
    return "data"


def _folder_environments(template: str) -> list[str]:
    """Environments next to `template` (or one folder up) whose registry maps a type it uses."""
    text = (CORPUS / template).read_text(encoding="utf-8")
    folder = (CORPUS / template).parent
    found = []
    for candidate in sorted({*folder.glob("*.yaml"), *folder.parent.glob("*.yaml")}):
        relative = candidate.relative_to(CORPUS).as_posix()
        if _kind(relative) != "environment":
            continue
        registry = (yaml.safe_load(candidate.read_text(encoding="utf-8")) or {}).get(
            "resource_registry"
        ) or {}
        if any(isinstance(key, str) and f"type: {key}" in text for key in registry):
            found.append(relative)
    return found


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"the corpus is not at {CORPUS} (set RECONCILER_CORPUS)")
@pytest.mark.parametrize("path", _corpus_files())
def test_corpus_file(path: str) -> None:
    """Each corpus file loads as Heat would load it, or fails with the expected clear message."""
    kind = _kind(path)
    files = DirectorySource(CORPUS)
    if kind == "data":
        pytest.skip(f"{path}: not a template or environment (a script, config or data file)")
    if kind == "broken":
        with pytest.raises(TemplateError):
            load_stack(files, path)
        return
    if kind == "cfn":
        with pytest.raises(TemplateError, match=CFN_MESSAGE):
            load_stack(files, path)
        return
    if kind == "environment":
        environment, _ = load_environments(files, [path], Limits())
        for mapping in environment.registry.global_types.values():
            if mapping.problem:  # Heat's own global environment names files under /etc
                assert "is an absolute path" in mapping.problem
            elif mapping.is_file and mapping.target not in EXPECTED_FAILURES:
                load_stack(files, mapping.target, [path])
        return
    environments = _folder_environments(path)
    if path in EXPECTED_FAILURES:
        with pytest.raises(TemplateError) as raised:
            load_stack(files, path, environments)
        assert EXPECTED_FAILURES[path] in str(raised.value)
        assert all(problem.line > 0 for problem in raised.value.problems)
        return
    definition = load_stack(files, path, environments)
    assert definition.template_path == path
    assert path in definition.input_files


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"the corpus is not at {CORPUS} (set RECONCILER_CORPUS)")
def test_verdicts_agree_with_heat_except_the_listed_differences() -> None:
    """Valid or invalid, as Heat says, for every template but those DIFFERS_FROM_HEAT explains."""
    files = DirectorySource(CORPUS)
    templates = [path for path in _corpus_files() if _kind(path) == "template"]
    agreeing = []
    for path in templates:
        try:
            load_stack(files, path, _folder_environments(path))
            valid = True
        except TemplateError:
            valid = False
        heat_valid = path not in EXPECTED_FAILURES or path in DIFFERS_FROM_HEAT
        if valid == heat_valid:
            agreeing.append(path)
    differing = sorted(set(templates) - set(agreeing))
    assert differing == sorted(DIFFERS_FROM_HEAT)
    assert len(agreeing) == len(templates) - len(DIFFERS_FROM_HEAT)


def test_corpus_is_present_under_ci() -> None:
    """Under CI the corpus must be there: a missing corpus never passes quietly."""
    if os.environ.get("CI", "").lower() == "true":
        assert CORPUS.is_dir(), f"the corpus is missing at {CORPUS}"
