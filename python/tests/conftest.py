"""pytest setup: the build's module (PYTHONPATH=build/python, set by ctest) and where
the sources and the kfvm command are."""

import os
import pathlib

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("KFVM_SOURCE_DIR",
                                         pathlib.Path(__file__).resolve().parents[2]))
DECKS = SOURCE_DIR / "apps" / "decks"


@pytest.fixture
def kfvm_command():
    command = os.environ.get("KFVM_COMMAND")
    if not command or not os.path.exists(command):
        pytest.skip("KFVM_COMMAND (the kfvm executable) is not set")
    return command
