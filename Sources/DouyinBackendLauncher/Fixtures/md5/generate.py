#!/usr/bin/env python3
"""Writes random.bin (1,000 random bytes) and the md5 of each of its prefixes, lengths 0…1000,
computed with Python's hashlib, for DouyinCache's MD5 tests."""
import hashlib
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
data = random.Random(1321).randbytes(1000)
(HERE / "random.bin").write_bytes(data)
with open(HERE / "prefix-digests.txt", "w") as out:
    for length in range(len(data) + 1):
        out.write(f"{length} {hashlib.md5(data[:length]).hexdigest()}\n")
