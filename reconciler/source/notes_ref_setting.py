"""Which notes ref a commit's notes live under: `notes_ref` of its `reconciler.yaml`, or the default.

Reading one key needs no validation of the whole file: a commit whose `reconciler.yaml` is broken
still has its INVALID note under the default ref, which is where the daemon wrote it.
"""

from __future__ import annotations

import yaml

from reconciler.source.commit_files import CommitFileSource
from reconciler.source.notes_store import DEFAULT_NOTES_REF
from reconciler.templates.errors import TemplateError

CONFIG_PATH = "reconciler.yaml"


def notes_ref_of(files: CommitFileSource) -> str:
    """The notes ref the commit's `reconciler.yaml` names, or `refs/notes/reconciler`."""
    try:
        document = yaml.load(files.read(CONFIG_PATH), Loader=yaml.CSafeLoader)
    except (TemplateError, yaml.YAMLError):
        return DEFAULT_NOTES_REF
    value = document.get("notes_ref") if isinstance(document, dict) else None
    return value if isinstance(value, str) and value.startswith("refs/notes/") else DEFAULT_NOTES_REF
