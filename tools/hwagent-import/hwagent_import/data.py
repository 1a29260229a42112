"""hwagent-run's data order, reproduced for PyTorch (docs/training.md):
the held-out split and the batches of every epoch, so a model trained by
hwagent-run can be evaluated in PyTorch on exactly the samples it held out."""

from __future__ import annotations

_MASK = (1 << 64) - 1


def permutation(n: int, seed: int) -> list[int]:
    """Fisher-Yates from i = n-1 down to 1, swapping i with
    splitmix64() % (i + 1): hwagent-run's `permutation(n, seed)`."""
    p = list(range(n))
    state = seed & _MASK

    def nxt() -> int:
        nonlocal state
        state = (state + 0x9E3779B97F4A7C15) & _MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    for i in range(n - 1, 0, -1):
        j = nxt() % (i + 1)
        p[i], p[j] = p[j], p[i]
    return p


def split(n: int, val_split: float, seed: int = 1) -> tuple[list[int], list[int]]:
    """(training indices ascending, held-out indices) as `--val-split`
    makes them: the last floor(val_split * n) of permutation(n, seed)."""
    held = int(val_split * n)
    p = permutation(n, seed)
    return sorted(p[:n - held]), p[n - held:]
