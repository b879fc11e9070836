"""Print the Nth fenced code block of the README's "## Quick start" section (1-based)."""

import re
import sys

with open(sys.argv[1], encoding="utf-8") as fh:
    text = fh.read()
section = re.search(r"^## Quick start\n(.*?)(?=^## |\Z)", text, re.S | re.M)
if not section:
    sys.exit("README has no '## Quick start' section")
blocks = re.findall(r"^```[a-z]*\n(.*?)^```", section.group(1), re.S | re.M)
if len(blocks) != 2:
    sys.exit(f"'## Quick start' must hold exactly two code blocks, found {len(blocks)}")
print(blocks[int(sys.argv[2]) - 1].strip())
