"""Config errors always carry a line: implicit tables, typos of top-level tables, ranges."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchdeck.engine.hosts.inventory import ConfigError
from benchdeck.engine.hosts.inventory_file import parse_inventory

CFG = Path("/etc/bd.toml")
GOOD = """\
[defaults]
threads = 4

[hosts.a]
transport = "local"

[[hosts.a.builds]]
name = "my8028_rel_o2nofp"
configs = { z12 = "/etc/z12.cnf" }

[hosts.b]
hostname = "10.0.0.2"
user = "bench"

[suites.quick]
workloads = ["point-query_range=100"]
"""


def error(text: str) -> ConfigError:
    with pytest.raises(ConfigError) as err:
        parse_inventory(text, CFG)
    return err.value


@pytest.mark.parametrize(
    ("text", "line", "key"),
    [
        ("[hostz.a]\ntransport = 'local'\n", 1, "hostz"),
        ("\n[hosts.a]\ntransport = 'local'\n\n[[hosts.z.builds]]\nname = 'my8028_rel'\n", 5, "hosts.z"),
        ("[hosts.a.builds.x]\nname = 1\n", 1, "hosts.a"),
        ("[hosts.a]\ntransport = 'local'\nfoo.bar = 1\n", 3, "hosts.a.foo"),
        ("\n\ndefaultz.threads = 2\n", 3, "defaultz"),
    ],
)
def test_implicit_tables_have_a_line(text: str, line: int, key: str) -> None:
    e = error(text)
    assert e.line == line
    assert e.key == key


@pytest.mark.parametrize(
    ("setting", "value"),
    [("threads", 9223372036854775807), ("threads", 100_001), ("tables", 2**31), ("port", 65536),
     ("table_size", 2**63), ("threads", 0)],
)  # fmt: skip
def test_integers_out_of_range_are_refused(setting: str, value: int) -> None:
    e = error(f"[hosts.a]\nhostname = 'x'\n{setting} = {value}\n")
    assert e.line == 3
    assert "out of range" in str(e)


def test_an_empty_config_lists_the_local_host() -> None:
    for text in ("", "# nothing yet\n", "[defaults]\nthreads = 8\n"):
        inv = parse_inventory(text, CFG)
        assert list(inv.hosts) == ["local"]
        assert inv.hosts["local"].transport == "local"
    assert parse_inventory("[defaults]\nthreads = 8\n", CFG).hosts["local"].threads == 8


VALUES = ["= 0", "= 9223372036854775807", "= ''", "= []", "= {}", "= 'x'"]


@st.composite
def mutated(draw: st.DrawFn) -> str:
    """GOOD with a header renamed, a header dropped, or a key changed."""
    lines = GOOD.splitlines()
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        kind = draw(st.sampled_from(["typo", "drop", "value", "dup"]))
        if kind == "typo":
            lines[i] = re.sub(r"[a-z]", draw(st.sampled_from("xz")), lines[i], count=1)
        elif kind == "drop":
            del lines[i]
        elif kind == "value":
            lines[i] = re.sub(r"= .*", draw(st.sampled_from(VALUES)), lines[i])
        else:
            lines.insert(i, lines[i])
    return "\n".join(lines) + "\n"


@settings(max_examples=300, derandomize=True)
@given(mutated())
def test_every_config_error_has_a_line(text: str) -> None:
    """Random damage to a good config: either it loads, or the error names a line."""
    problem: ConfigError | None = None
    try:
        parse_inventory(text, CFG)
    except ConfigError as e:
        problem = e
    if problem is not None:
        assert problem.line is not None, str(problem)
        assert str(problem).startswith(f"{CFG}:{problem.line}: ")
