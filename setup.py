"""Packaging for reconciler: a GitOps daemon converging OpenStack clouds to Heat templates in git."""

from pathlib import Path

from setuptools import find_packages, setup

RUNTIME = [
    "GitPython>=3.1.40,<4",
    "watchdog>=4,<8",
    "PyYAML>=6.0.1,<7",
    "jsonschema>=4.20,<5",
    "openstacksdk>=3,<5",
    "APScheduler>=3.10,<4",
    "SQLAlchemy>=2.0.25,<3",
    "alembic>=1.13,<2",
    "psycopg[binary]>=3.1.18,<4",
    "click>=8.1,<9",
    "yaql>=3,<4",
    "platformdirs>=4,<5",
    "prometheus-client>=0.20,<1",
    "cryptography>=42,<51",
    "uvicorn>=0.30,<1",  # the agent API's server (reconciler/daemon/agent_server.py says why)
    "httptools>=0.6,<1",  # uvicorn's C parser for HTTP/1.1
    "uvloop>=0.19,<1",  # uvicorn's event loop in C (libuv): a fifth less CPU per agent poll
]

TEST = [
    "pytest>=8,<10",
    "hypothesis==6.170.15",  # pinned: the examples drawn for a seed change between releases
    "ruff>=0.6,<1",
    "mypy>=1.10,<3",
    "import-linter>=2.1,<3",
    "types-PyYAML>=6.0.12,<7",
    "types-jsonschema>=4.20,<5",
    "os-collect-config==14.1.0",  # the real agent polling the agent API in tests
]

setup(
    name="reconciler",
    version="0.1.0",
    description="A GitOps daemon that keeps OpenStack clouds converged to Heat templates kept in git",
    long_description=Path(__file__).with_name("README.md").read_text(encoding="utf-8"),
    long_description_content_type="text/markdown",
    license="Apache-2.0",
    python_requires=">=3.11",
    packages=find_packages(include=["reconciler*", "providers*", "state*", "schemas*", "timekeeping*"]),
    package_data={
        "schemas": ["*.json", "resource_types/*.yaml"],
        "state": ["migrations/*.ini", "migrations/*.mako"],
    },
    include_package_data=True,
    install_requires=RUNTIME,
    extras_require={"test": TEST},
    entry_points={"console_scripts": ["reconciler = reconciler.cli.main:main"]},
)
