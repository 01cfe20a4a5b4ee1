"""What each resource of a template yielded at its last full load, kept so the next load of that
template changed in a few resources parses, binds and checks those few alone.

An image is kept per template path in the `BlockKeeper`, under the digest of every input of the
load besides the resources' own text: the template's text outside its resources, the environment
files' bytes, the parameter values and pseudo parameters given, the resource type schemas and the
format of this code's yield. An image whose inputs differ from this load's is not used at all. In
a matching image, a resource's yield is reused only when its text (by its block or line digest) is
the text it was made from, and no name it refers to (get_resource, get_attr, Ref, depends_on) is
a resource added, removed or changed since: its type, dependencies and checks read nothing else.

A resource has a yield kept only when it is plain: its parse reported nothing and met no function
the version lacks, it has no condition, no `if`, no get_file, no nested stack and a literal (or no)
deletion policy, so its checks read only its text, its type's schema and the parameters. And an
image is kept only after a load that found no problem: a reused resource was found clean under the
same inputs. A load that reuses and then finds a problem is made again in full by the caller, so
every problem comes from a full load, in its order, with its file and line.
"""

from __future__ import annotations

import hashlib
import json
import marshal
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from reconciler.templates.block_parsing import BlockKeeper
from reconciler.templates.definition import StackDefinition
from reconciler.templates.documents import Document
from reconciler.templates.image_pickles import PicklerApart
from reconciler.templates.limits import Limits
from reconciler.templates.reused_resources import ReusedResource, ReusedResources
from reconciler.templates.template_model import TemplateModel
from schemas.resource_schemas import schemas_fingerprint

if TYPE_CHECKING:
    from reconciler.templates.loading import LoadContext

# Names what an image holds and how its yields were made: a change to the model, binding or checks
# of a resource changes it, so no image of the old code is read.
IMAGE_FORMAT = "load-image-3"


class ImageUse:
    """The load image of a top-level template: read before its load, kept after a clean one."""

    def __init__(
        self,
        context: LoadContext,
        path: str,
        environments: Sequence[str],
        values: Mapping[str, Any],
        pseudo: Mapping[str, str],
    ) -> None:
        assert context.blocks is not None
        self._keeper = context.blocks
        self._context = context
        self._path = path
        self._slot = image_slot(path, context.limits)
        self.reused: ReusedResources | None = None
        self._image: LoadImage | None = None
        self._inputs: bytes | None = None
        document = context.document(path)
        if isinstance(document.data, dict) and isinstance(document.data.get("resources"), Mapping):
            read = {name: context.read(name) for name in environments}
            self._inputs = load_inputs(document, context.limits, read, values, pseudo)

    def reusable(self) -> ReusedResources | None:
        """The yields this load may reuse (None: no image of these inputs)."""
        if self._inputs is not None:
            self._image = read_image(self._keeper, self._slot, self._inputs)
        if self._image is not None:
            self.reused = self._image.reuse(self._context.document(self._path))
        return self.reused

    def keep(self, definition: StackDefinition) -> None:
        """Keep this clean load's image, unless the one it reused differs from it in few resources."""
        if self._inputs is None:
            return
        reused = self.reused
        if reused is not None and reused.touched * 100 <= len(reused.order):
            return  # a few resources made again at each load cost less than writing the image
        model = self._context.model(self._path)
        content = image_content(model, definition, reused, self._image)
        self._keeper.keep(self._slot, {self._inputs: content})


def image_slot(path: str, limits: Limits) -> str:
    """The slot of the images of the template at `path` read within `limits`."""
    return hashlib.sha256(f"{IMAGE_FORMAT}\0{path}\0{limits!r}".encode()).hexdigest()


def load_inputs(
    document: Document,
    limits: Limits,
    environments: Mapping[str, bytes],
    values: Mapping[str, Any],
    pseudo: Mapping[str, str],
) -> bytes | None:
    """The digest of a top-level load's inputs besides its resources' text (None: not cut in
    resources, or values that have no canonical form)."""
    if document.skeleton_digest is None:
        return None
    try:
        given = json.dumps([values, pseudo], sort_keys=True, separators=(",", ":"), default=repr)
    except (TypeError, ValueError):
        return None
    digest = hashlib.sha256(f"{IMAGE_FORMAT}\0{document.path}\0{limits!r}\0".encode())
    digest.update(document.skeleton_digest)
    for path, content in environments.items():
        digest.update(f"\0{path}\0".encode() + hashlib.sha256(content).digest())
    digest.update(b"\0" + given.encode() + b"\0" + schemas_fingerprint())
    return digest.digest()


class LoadImage:
    """The image of one template's last full load: every resource's text digest, the yield of those
    that are plain, and by name the plain resources that refer to it."""

    def __init__(
        self,
        digests: Mapping[str, bytes],
        entries: Mapping[str, ReusedResource],
        referrers: Mapping[str, list[str]],
    ) -> None:
        self.digests = digests
        self.entries = entries
        self.referrers = referrers

    def reuse(self, document: Document) -> ReusedResources | None:
        """The yields `document` may reuse: of resources whose text and referred names are unchanged
        (None when a resource's name is not a string: the model names it otherwise)."""
        order = tuple(document.data["resources"])
        now = document.resource_digests
        if len(now) != len(order) or not all(type(name) is str for name in now):
            return None
        # names whose digest differs, and names only one side has (set operations, not a loop)
        touched = {name for name, _ in self.digests.items() ^ now.items()}
        entries = dict(self.entries)
        for name in touched:
            entries.pop(name, None)
            for referrer in self.referrers.get(name, ()):
                entries.pop(referrer, None)
        return ReusedResources(order, entries, len(touched))


def read_image(keeper: BlockKeeper, slot: str, inputs: bytes) -> LoadImage | None:
    """The image kept in `slot` for a load of these `inputs`, if one is."""
    content = keeper.known(slot).get(inputs)
    if type(content) is not bytes:
        return None
    try:
        digests, plain, referrers = marshal.loads(content)
    except (EOFError, ValueError, TypeError):
        return None
    if type(digests) is not dict or type(plain) is not dict or type(referrers) is not dict:
        return None
    new = tuple.__new__  # each entry made a `ReusedResource` in C, without its Python-level __new__
    return LoadImage(digests, {name: new(ReusedResource, entry) for name, entry in plain.items()}, referrers)


def image_content(
    model: TemplateModel,
    definition: StackDefinition,
    reused: ReusedResources | None,
    before: LoadImage | None,
) -> bytes:
    """The image of a load that found no problem: the yields it reused (from image `before`), and
    those of the resources it made that are plain."""
    entries = dict(reused.entries) if reused is not None else {}
    referrers: dict[str, list[str]] = {}
    if reused is not None and before is not None:
        for name, names in before.referrers.items():
            still = [referrer for referrer in names if referrer in entries]
            if still:
                referrers[name] = still
    apart = PicklerApart()
    for name in model.resources:
        made = _entry(model, definition, name, apart)
        if made is not None:
            entries[name], referenced = made
            for target in referenced:
                referrers.setdefault(target, []).append(name)
    # marshal, not pickle: the image is plain data (its entries as plain tuples), read back in C
    plain = {name: tuple(entry) for name, entry in entries.items()}
    return marshal.dumps((dict(model.document.resource_digests), plain, referrers))


def _entry(
    model: TemplateModel, definition: StackDefinition, name: str, apart: PicklerApart
) -> tuple[ReusedResource, frozenset[str]] | None:
    """The yield of resource `name` of this load, if it is plain, and every name its snippets and
    depends_on refer to."""
    written = model.resources[name]
    resource = definition.resources.get(name)
    digest = model.document.resource_digests.get(name)
    references = written.references
    if (
        resource is None
        or digest is None
        or name not in model.quiet
        or written.condition is not None
        or references.has_if
        or references.files
        or resource.nested_kind is not None
        or not isinstance(written.raw.get("deletion_policy", ""), str)
        or not isinstance(resource.deletion_policy, str)
    ):
        return None
    entry = ReusedResource(
        digest,
        written.type,
        resource.type,
        resource.deletion_policy,
        resource.depends_on,
        apart.dumps(definition.parsed_properties(name)),
    )
    return entry, frozenset(references.resources) | frozenset(written.depends_on)
