"""Shared paths of the test suite."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STREAMS = ROOT / "corpus" / "streams"
