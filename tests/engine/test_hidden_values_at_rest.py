"""`reconciler apply` with a hidden parameter that reaches a nested stack's server (its user_data):
the stacks converge, and no row of the database holds the value in clear. The key file was made on
first use beside the database, readable by its owner alone."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import git
import yaml
from click.testing import CliRunner

from reconciler.cli.demo import make_sample_repository
from reconciler.cli.main import cli

SECRET = "Hidden-Value-4711"


def a_repository_passing_a_hidden_value_to_every_node(destination: Path) -> Path:
    repo = make_sample_repository(destination)
    config_path = destination / "reconciler.yaml"
    config = yaml.safe_load(config_path.read_text())
    config["stacks"]["app"]["parameters"]["admin_password"] = SECRET
    config_path.write_text(yaml.safe_dump(config))
    template = destination / "stacks" / "app" / "template.yaml"
    indent = " " * 16
    script_line = f'{indent}echo "db password: $DB" > /etc/app.conf\n'
    param_line = f"{indent}$DB: {{get_attr: [db_password, value]}}\n"
    text = template.read_text()
    assert script_line in text and param_line in text
    text = text.replace(script_line, f'{script_line}{indent}echo "admin: $ADMIN" >> /etc/app.conf\n')
    text = text.replace(param_line, f"{param_line}{indent}$ADMIN: {{get_param: admin_password}}\n")
    template.write_text(text)
    repo.git.commit("-am", "Give every node the admin password")
    return destination


def every_row(database: Path) -> str:
    connection = sqlite3.connect(database)
    try:
        return "\n".join(connection.iterdump())
    finally:
        connection.close()


def test_a_hidden_value_converges_and_is_stored_nowhere_in_clear(tmp_path: Path) -> None:
    repo = a_repository_passing_a_hidden_value_to_every_node(tmp_path / "repo")
    database = tmp_path / "state.sqlite"

    result = CliRunner().invoke(cli, ["apply", "--repo", str(repo), "--database", f"sqlite:///{database}"])

    assert result.exit_code == 0, result.output
    assert "app: CONVERGED" in result.output
    assert str(git.Repo(repo).head.commit.message).startswith("Give every node")
    rows = every_row(database)
    assert SECRET not in rows
    assert "$sealed" in rows
    key_file = database.with_name("state.sqlite.key")
    assert key_file.stat().st_mode & 0o777 == 0o600
