"""README.md's Python example, run as written: the `python` block's code, and
what its `print` lines say they print (the comment after each)."""

import contextlib
import io
import re

from conftest import ROOT


def python_blocks():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"^```python\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL)


def test_the_readme_has_one_python_example():
    assert len(python_blocks()) == 1


def test_the_readme_example_prints_what_it_says():
    [code] = python_blocks()
    # Each `print(...)  # OUTPUT` line: OUTPUT is the line it prints.
    expected = [line.split("  # ", 1)[1] for line in code.splitlines()
                if line.startswith("print(") and "  # " in line]
    assert expected, "the example shows no output"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {"__name__": "readme"})
    assert out.getvalue().splitlines() == expected
