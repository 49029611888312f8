"""The command line lets idle OpenMP threads sleep, unless the user chose."""

import os
import subprocess
import sys

import pytest

SHOW = (
    "import os, labelclean.cli.main, sys; "
    "sys.stdout.write(os.environ.get('OMP_WAIT_POLICY', '<unset>'))"
)


@pytest.mark.parametrize(
    ("given", "expected"), [(None, "PASSIVE"), ("ACTIVE", "ACTIVE")]
)
def test_the_cli_sets_a_passive_openmp_wait_policy(given, expected):
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if given is not None:
        env["OMP_WAIT_POLICY"] = given
    out = subprocess.run(
        [sys.executable, "-c", SHOW],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout == expected
