"""Small uploads that used to take the server's memory, read as the app reads them.

Each bomb read in a fresh process with the default caps (issue 13's targets, and a zip of many members):
- a 10 KB `.jsonl.gz` of 10 million empty lines (it used to cost 2.3 GB: one problem per line);
- an 8 MB gzip that expands to 8 GiB (it used to end in MemoryError);
- a 38 MB `.eval` zip of 300,000 empty members (it used to take 10 s and
  264 MB, 125 MB above the bomb's own bytes: a ZipInfo and a problem per member);
peak memory of the process (max RSS, the interpreter and its imports included) at most 300 MB,
and the read at most 5 s (wall time; the CPU time beside it shows what a busy machine added).

    .venv/bin/python -m bench.upload_bombs
"""

from __future__ import annotations

import gzip
import json
import resource
import struct
import subprocess
import sys
import time
import zlib

MEMORY_TARGET_MB = 300
TIME_TARGET_S = 5.0
MEMBER_BYTES = 64 * 1024 * 1024
"""One gzip member of zeros; the 8 GiB bomb is this member repeated (a valid multi-member gzip)."""


def empty_lines() -> tuple[str, bytes]:
    """10 million empty lines, gzipped."""
    return "empty-lines.jsonl.gz", gzip.compress(b"\n" * 10_000_000, compresslevel=9)


def eight_gib() -> tuple[str, bytes]:
    """8 GiB of zeros as 128 gzip members of 64 MiB each."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    member = packer.compress(bytes(MEMBER_BYTES)) + packer.flush()
    return "zeros.jsonl.gz", member * (8 * 1024 ** 3 // MEMBER_BYTES)


def many_members(count: int = 300_000) -> tuple[str, bytes]:
    """An `.eval` zip of `count` empty sample members, written by hand: zipfile's writer would hold a ZipInfo for
    each, and its memory would count in this process's. The end record's 16-bit count says 65,535 and no Zip64
    record follows: zipfile reads the directory by its size in bytes, whatever the count says."""
    local, directory = bytearray(), bytearray()
    for number in range(1, count + 1):
        name = f"samples/{number}_epoch_1.json".encode()
        directory += struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 0, 0, 0x21, 0, 0, 0, len(name), 0, 0,
                                 0, 0, 0, len(local)) + name
        local += struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 0, 0, 0x21, 0, 0, 0, len(name), 0) + name
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, len(directory), len(local), 0)
    return "members.eval", bytes(local + directory + end)


BOMBS = {"10 million empty lines": empty_lines, "8 GiB of zeros": eight_gib, "300,000 zip members": many_members}


def _one(title: str) -> dict:
    """Read one bomb in this process: seconds, max RSS (building the bomb included) and what the user is told."""
    from lib.logs.upload import read_upload

    name, data = BOMBS[title]()
    start, cpu = time.perf_counter(), time.process_time()
    upload = read_upload([(name, data)])
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {"file (KB)": len(data) // 1024, "seconds": seconds, "CPU seconds": cpu,
            "max RSS (MB)": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "summary": upload.summary(), "first problem": str(upload.problems[0]) if upload.problems else ""}


def main() -> dict:
    results = {}
    passed = True
    for title in BOMBS:
        out = subprocess.run([sys.executable, "-m", "bench.upload_bombs", "--one", title],
                             capture_output=True, text=True, check=True).stdout
        found = json.loads(out)
        results[title] = found
        ok = found["max RSS (MB)"] <= MEMORY_TARGET_MB and found["seconds"] <= TIME_TARGET_S
        passed &= ok
        print(f"{title}:")
        for key, value in found.items():
            print(f"{key:>24}: {value:.2f}" if isinstance(value, float) else f"{key:>24}: {value}")
        print(f"{'targets':>24}: ≤ {MEMORY_TARGET_MB} MB, ≤ {TIME_TARGET_S:.0f} s: {'PASS' if ok else 'FAIL'}")
    print("PASS" if passed else "FAIL")
    return results


if __name__ == "__main__":
    if sys.argv[1:2] == ["--one"]:
        print(json.dumps(_one(sys.argv[2])))
    else:
        main()
