"""A second commit that does not touch a large template: how long re-reading it takes.

    python -m bench.templates_recommit [--resources 50000] [--format yaml|json] [--default-gc]

A git repository in a temporary directory holds the generated template of `bench.templates_load`
and a small environment. The first commit is loaded as the daemon loads it (from the commit's tree,
through a `DocumentCache`, the collector set as the daemon sets it unless `--default-gc`); the
second changes only the environment. Prints, for the second
commit, the time to re-read the template (its blob id from the tree, its parsed document found
by it), how many documents were parsed again (none expected), and the whole load (model, binding
and checks, which depend on the new environment) beside the first commit's.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import git

from bench.templates_load import load_collector, template_text
from reconciler.daemon.collector import tune_process
from reconciler.source.commit_files import CommitFileSource
from reconciler.templates import DocumentCache, Limits, load_stack

TEMPLATE = "stacks/big/template.yaml"
ENVIRONMENT = "environments/big.yaml"


def _commit(repo: git.Repo, files: dict[str, str], message: str) -> str:
    root = Path(repo.working_tree_dir or ".")
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    repo.index.add(list(files))
    return repo.index.commit(message).hexsha


def _timed_load(
    repo: git.Repo, commit: str, documents: DocumentCache, limits: Limits, default_gc: bool
) -> tuple[float, float, float]:
    """Wall seconds to re-read the template at `commit`, and wall and CPU seconds to load the whole
    stack there."""
    files = CommitFileSource(repo, commit)
    started = time.perf_counter()
    blob_id = files.blob_id(TEMPLATE)
    found = documents.get(blob_id, limits) if blob_id is not None else None
    reread = time.perf_counter() - started
    if found is None:
        reread = float("nan")  # not held yet: the load below parses it
    started, started_cpu = time.perf_counter(), time.process_time()
    with load_collector(default_gc):
        load_stack(files, TEMPLATE, [ENVIRONMENT], limits=limits, documents=documents)
    return reread, time.perf_counter() - started, time.process_time() - started_cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resources", type=int, default=50_000)
    parser.add_argument("--format", choices=("yaml", "json"), default="yaml")
    parser.add_argument("--default-gc", action="store_true", help="leave the collector as Python sets it")
    arguments = parser.parse_args()
    text = template_text(arguments.resources, arguments.format)
    limits = Limits(max_template_bytes=len(text) + 1, max_yaml_nodes=50_000_000)
    documents = DocumentCache()
    with tempfile.TemporaryDirectory() as directory:
        repo = git.Repo.init(directory, initial_branch="main")
        with repo.config_writer() as config:
            config.set_value("user", "name", "Bench")
            config.set_value("user", "email", "bench@example.invalid")
        first = _commit(repo, {TEMPLATE: text, ENVIRONMENT: "parameter_defaults: {prefix: one}\n"}, "first")
        second = _commit(repo, {ENVIRONMENT: "parameter_defaults: {prefix: two}\n"}, "environment only")
        del text
        if not arguments.default_gc:
            tune_process()
        _, first_load, first_cpu = _timed_load(repo, first, documents, limits, arguments.default_gc)
        parsed = documents.parses
        reread, second_load, second_cpu = _timed_load(repo, second, documents, limits, arguments.default_gc)
        repo.close()
    print(f"template: {arguments.resources} resources, {arguments.format}")
    print(
        f"first commit: whole load {first_load:.2f} s wall, {first_cpu:.2f} s CPU ({parsed} document parsed)"
    )
    print(
        f"second commit (environment only): template re-read in {reread * 1000:.1f} ms,"
        f" {documents.parses - parsed} document(s) parsed again;"
        f" whole load (binding and checks) {second_load:.2f} s wall, {second_cpu:.2f} s CPU"
    )


if __name__ == "__main__":
    main()
