"""What a server binary's stacks will lack: a symbol table (stripped) and frame pointers, read
from its ELF file with the standard library (shipped to the host with :mod:`.host_perf`, whose
preflight prints these ``warn`` lines)."""

from __future__ import annotations

import os
import struct


def binary_findings(path: str) -> list[str]:
    """``warn`` lines for a server binary without a symbol table or frame pointers."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return []  # another user's process: its binary cannot be read, nothing to say
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return []  # only 64-bit little-endian ELF is read
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    secs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    out = []
    symtab = next((i for i, s in enumerate(secs) if s[1] == 2), None)  # SHT_SYMTAB
    if symtab is None:
        out.append(
            f"warn stripped {os.path.realpath(path)} is stripped: stacks name only its exported "
            "functions (install its debug symbols, e.g. the -dbgsym package, or use an unstripped build)"
        )
    table = symtab if symtab is not None else next((i for i, s in enumerate(secs) if s[1] == 11), None)
    if table is not None and _frame_pointer_share(data, secs, table) < 0.5:
        out.append(
            f"warn frame-pointers {os.path.realpath(path)} looks built without frame pointers: "
            "perf record -g stacks stop early or skip callers (build with -fno-omit-frame-pointer, "
            "the o2nofp variants)"
        )
    return out


# The C runtime's start-up code, linked into every binary and built without frame pointers
_STARTUP = {b"_start", b"_init", b"_fini", b"deregister_tm_clones", b"register_tm_clones"}
_STARTUP |= {b"__do_global_dtors_aux", b"frame_dummy", b"__libc_csu_init", b"__libc_csu_fini"}


def _frame_pointer_share(data: bytes, secs: list[tuple[int, ...]], table: int) -> float:
    """The share of sampled functions (>= 32 bytes) that set up a frame pointer: ``mov %rsp,%rbp``
    in their first 48 bytes (gcc may schedule instructions before it, or shrink-wrap it past an
    early return; a binary built without frame pointers uses %rbp as a plain register and never
    does this). The C runtime's start-up functions do not count."""
    _, _, _, _, off, size, link, _, _, entsize = secs[table]
    names = secs[link][4] if link < len(secs) else 0
    funcs = []
    for i in range(0, size // max(entsize, 24)):
        name_at, info, _, shndx, value, fsize = struct.unpack_from("<IBBHQQ", data, off + i * 24)
        if info & 0xF == 2 and fsize >= 32 and 0 < shndx < len(secs):
            name = data[names + name_at : data.find(b"\0", names + name_at)]
            if name not in _STARTUP:
                funcs.append((value, shndx))
    if not funcs:
        return 1.0
    step = max(1, len(funcs) // 400)
    hits = total = 0
    for value, shndx in funcs[::step]:
        sec = secs[shndx]
        pos = value - sec[3] + sec[4]
        total += 1
        hits += b"\x48\x89\xe5" in data[pos : pos + 48]
    return hits / total if total else 1.0
