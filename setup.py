"""Packaging for reconciler: a GitOps daemon converging OpenStack clouds to Heat templates in git."""

from pathlib import Path

from setuptools import find_packages, setup

# Pinned exactly, so a fresh machine installs what the suite passed with (PyYAML 6.0.4, for one,
# orders merged keys differently from the reading the template tests hold Heat to).
RUNTIME = [
    "GitPython==3.2.1",
    "watchdog==7.1.0",
    "PyYAML==6.0.3",
    "jsonschema==4.26.0",
    "openstacksdk==4.22.0",
    "APScheduler==3.11.3",
    "SQLAlchemy==2.1.9",
    "alembic==1.20.1",
    "psycopg[binary]==3.3.9",
    "click==8.5.1",
    "yaql==3.2.0",
    "platformdirs==4.14.7",
    "prometheus-client==0.26.0",
    "cryptography==50.0.2",
    "uvicorn==0.54.0",  # the agent API's server (reconciler/daemon/agent_server.py says why)
    "httptools==0.9.0",  # uvicorn's C parser for HTTP/1.1
    "uvloop==0.23.0",  # uvicorn's event loop in C (libuv), cheaper per agent poll
]

TEST = [
    "pytest==9.2.0",
    "hypothesis==6.170.15",  # pinned: the examples drawn for a seed change between releases
    "ruff==0.17.6",
    "mypy==2.4.1",
    "import-linter==2.16",
    "types-PyYAML==6.0.12.20261113",
    "types-jsonschema==4.26.0.20261006",
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
