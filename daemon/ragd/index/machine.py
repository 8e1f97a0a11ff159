"""What this machine is, for choices that depend on it (the embedding precision).

Read from /proc/cpuinfo text, so a test can hand in another CPU's text: the model name,
the feature flags, and whether the CPU computes bfloat16 natively (`avx512_bf16` or
`amx_bf16`); without either, torch emulates bfloat16 and it cannot beat float32.
"""

from __future__ import annotations

import hashlib
import platform
from dataclasses import dataclass
from pathlib import Path

NATIVE_BF16_FLAGS = ("avx512_bf16", "amx_bf16")


@dataclass(frozen=True)
class Cpu:
    name: str
    flags: frozenset[str]

    @property
    def native_bf16(self) -> bool:
        return any(flag in self.flags for flag in NATIVE_BF16_FLAGS)

    @classmethod
    def parse(cls, cpuinfo: str) -> Cpu:
        """The first processor's model name and flags from /proc/cpuinfo text."""
        name, flags = "", ""
        for line in cpuinfo.splitlines():
            key, _, value = line.partition(":")
            key = key.strip()
            if key == "model name" and not name:
                name = value.strip()
            elif key in ("flags", "Features") and not flags:  # x86, ARM
                flags = value
        return cls(name or platform.processor() or platform.machine(), frozenset(flags.split()))


def this_cpu() -> Cpu:
    try:
        return Cpu.parse(Path("/proc/cpuinfo").read_text(errors="replace"))
    except OSError:  # not Linux: no flags, so no native bfloat16 is assumed
        return Cpu.parse("")


def identity(cpu: Cpu, model_id: str) -> dict[str, str]:
    """What a per-machine decision depends on; a change in any of these means deciding again."""
    import torch

    flags = " ".join(sorted(cpu.flags))
    return {
        "cpu": cpu.name,
        "cpu_flags": hashlib.sha256(flags.encode()).hexdigest()[:16],
        "torch": torch.__version__,
        "model": model_id,
    }
