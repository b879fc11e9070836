"""What Launch lists in its first frame, before the inventory and the store load: on a machine
with no inventory file (a newcomer's), the ``local`` host with the built-in builds and workloads,
all a user needs to pick and start. With an inventory, None: Launch fills its lists once the
file is read (on a thread), as before."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from benchdeck.engine.families.builtin.catalogue import BUILTIN_BUILDS, BUILTIN_WORKLOADS
from benchdeck.engine.hosts.inventory_place import default_config_path, named_inventory

LOCAL = "local"


@dataclass(frozen=True, slots=True)
class FirstLists:
    """Launch's lists as the inventory will give them, known without reading it."""

    hosts: tuple[str, ...]
    builds: tuple[str, ...]
    workloads: tuple[str, ...]


def first_lists(env: Mapping[str, str] = os.environ) -> FirstLists | None:
    """The lists of a machine without an inventory file (one stat of the default path), else None."""
    if named_inventory(env) is not None or default_config_path().exists():
        return None
    return FirstLists((LOCAL,), tuple(BUILTIN_BUILDS), tuple(BUILTIN_WORKLOADS))
