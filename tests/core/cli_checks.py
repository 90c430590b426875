"""What the contract tests ask of a CLI call: one JSON object, or a mistake refused."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from sparsekm.cli.app import app

runner = CliRunner()


def run_json(*args: str) -> dict:
    """Exit 0 and stdout is one JSON object: that object."""
    res = runner.invoke(app, [*args, "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def refused(*args: str) -> str:
    """A user mistake: exit 2, empty stdout, one line on stderr, no traceback; that line."""
    res = runner.invoke(app, list(args))
    assert res.exit_code == 2, res.output
    assert res.stdout == "" and "Traceback" not in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1, res.stderr
    return res.stderr
