"""Write the README screenshots (docs/screenshots/*.svg) from the demo store at 100x30.

Run with ``python -m tests.app.make_screenshots`` from the repository root.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

from tests.app.helpers import settle
from tests.app.storedata import BASE, HOST, LTO, NEW, build_demo

OUT = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
SIZE = (100, 30)


async def _shots(db: Path) -> list[Path]:
    from benchdeck.tui.app.app import BenchdeckApp
    from benchdeck.tui.app.state.selection import Selection

    written = []
    app = BenchdeckApp(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.selection = Selection(HOST, BASE, (NEW, LTO))
        for name, keys in (("runs", []), ("compare", ["2"]), ("triage", ["3"])):
            for key in keys:
                await pilot.press(key)
                await settle(pilot)
            OUT.mkdir(parents=True, exist_ok=True)
            written.append(Path(app.save_screenshot(f"{name}.svg", str(OUT))))
    return written


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["BENCHDECK_CONFIG_DIR"] = str(Path(tmp) / "config")  # the default theme, always
        db = Path(tmp) / "demo.duckdb"
        build_demo(db)
        os.chdir(tmp)  # the header shows the store relative to the working directory
        for path in asyncio.run(_shots(db)):
            print(path)


if __name__ == "__main__":
    main()
