"""How long each hostile input takes to be refused (the issue asks: within a second).

    python -m bench.templates_hostile

Alias bomb, a 10 MB template, 100,000 levels of nesting, get_file escaping the tree, recursive
template resources: each is loaded from memory and the time until its TemplateError is printed.
"""

from __future__ import annotations

import time

from reconciler.templates import MemorySource, TemplateError, load_stack

HEADER = "heat_template_version: 2018-08-31\n"


def _laughs(level: int) -> str:
    items = [f"*l{level - 1}"] * 9 if level else ["x"] * 9
    return f"  l{level}: &l{level} [{', '.join(items)}]\n"


CASES = {
    "alias bomb (10 levels x 9)": {"t.yaml": HEADER + "outputs:\n" + "".join(_laughs(n) for n in range(10))},
    "10 MB template": {"t.yaml": HEADER + "#" * (10 * 1024 * 1024)},
    "100,000 levels of nesting": {"t.yaml": HEADER + "resources: " + "[" * 100_000 + "]" * 100_000},
    "get_file ../../etc/passwd": {
        "t.yaml": HEADER
        + "resources:\n  r:\n    type: OS::Heat::None\n    properties: {p: {get_file: ../../etc/passwd}}\n"
    },
    "recursive template resources": {
        "t.yaml": HEADER + "resources:\n  a: {type: a.yaml}\n",
        "a.yaml": HEADER + "resources:\n  b: {type: t.yaml}\n",
    },
}


def main() -> None:
    for label, files in CASES.items():
        started = time.perf_counter()
        try:
            load_stack(MemorySource(files), "t.yaml")
        except TemplateError as error:
            elapsed = time.perf_counter() - started
            print(f"{label}: refused in {elapsed * 1000:.1f} ms: {error.problems[0]}"[:200])
        else:
            raise SystemExit(f"{label}: accepted")


if __name__ == "__main__":
    main()
