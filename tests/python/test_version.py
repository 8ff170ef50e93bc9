"""wgrt.__version__ is the version the package was installed as (pyproject.toml)."""
import importlib.metadata

import wgrt


def test_version_matches_the_installed_package():
    assert wgrt.__version__ == importlib.metadata.version("wgrt")
