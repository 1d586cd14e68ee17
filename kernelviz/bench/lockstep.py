"""Timing a graph that holds collectives needs every rank of the job to run it at the same moment: the
ranks time such graphs in lockstep, meeting at a barrier before each repetition.

Every meeting goes through the job's c10d store, never through a collective, and has a time limit: a rank
that does not come (it never times, or it fails half way) makes the others give up after ``limit_s`` with a
one-line reason instead of hanging in NCCL. Who comes and who gives up is settled by one atomic
``compare_set`` per meeting, so every rank reaches the same decision. A meeting also checks that the ranks
mean to time the same thing (a digest of their plan), since ranks running different collectives would hang.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

_PREFIX = "kernelviz/lockstep"
_GO = "go"
_held: dict[str, int] = {}  # meeting place -> meetings this process has held there


class LockstepError(RuntimeError):
    """The ranks could not time together; the message says why in one line."""


class Lockstep:
    """The ranks of the default process group, meeting through its store. ``failed`` says why, once a rank
    has not come in time: the bench then holds no more meetings with it."""

    def __init__(self, limit_s: float = 60.0, store: Any = None):
        import torch.distributed as dist
        from torch.distributed.distributed_c10d import _get_default_store

        self.rank, self.world = dist.get_rank(), dist.get_world_size()
        self.store = store if store is not None else _get_default_store()
        self.limit_s = limit_s
        self.failed: str | None = None
        self._token: Any = None

    def _key(self, what: str) -> str:
        """The store key of the next meeting at ``what``: the next one this process holds there, past any
        that the others gave up on while this rank was missing."""
        place = f"{_PREFIX}/{hashlib.sha1(what.encode()).hexdigest()[:16]}"
        n = _held.get(place, 0) + 1
        while self.store.check([f"{place}/{n}/{_GO}"]) and _text(self.store.get(f"{place}/{n}/{_GO}")) != _GO:
            n += 1
        _held[place] = n
        return f"{place}/{n}"

    def meet(self, what: str, plan: str = "") -> list[str]:
        """Wait for every rank to reach this meeting (at most ``limit_s``); returns each rank's ``plan``.
        Raises LockstepError, naming the missing ranks, where one does not come or another gave up."""
        key = self._key(what)
        self.store.set(f"{key}/plan/{self.rank}", plan)
        if self.store.add(f"{key}/arrived", 1) == self.world:
            decision = self.store.compare_set(f"{key}/{_GO}", "", _GO)
        else:
            decision = self._wait(f"{key}/{_GO}")
        decision = decision.decode() if isinstance(decision, bytes) else decision
        if decision != _GO:
            missing = [r for r in range(self.world) if not self.store.check([f"{key}/plan/{r}"])]
            self.failed = (f"rank{'s' * (len(missing) > 1)} {', '.join(map(str, missing))} did not come to {what} "
                           f"within {self.limit_s:g} s" if missing else
                           f"another rank stopped waiting at {what} before this one came (limit {self.limit_s:g} s)")
            raise LockstepError(self.failed)
        return [_text(self.store.get(f"{key}/plan/{r}")) for r in range(self.world)]

    def _wait(self, key: str) -> bytes | str:
        try:
            self.store.wait([key], timedelta(seconds=self.limit_s))
            return self.store.get(key)
        except Exception:  # noqa: BLE001 - the store's timeout: give up, unless the last rank came meanwhile
            return self.store.compare_set(key, "", "given up")

    def agree(self, what: str, plan: str, cannot: str | None = None) -> None:
        """Meet, and raise LockstepError unless every rank brought the same plan and can carry it out
        (``cannot``: why this rank cannot, which it still comes to say, so that no rank waits for it)."""
        mine = f"no:{cannot}" if cannot else "ok:" + hashlib.sha1(plan.encode()).hexdigest()
        plans = self.meet(what, mine)
        unable = next(((r, p[3:]) for r, p in enumerate(plans) if p.startswith("no:")), None)
        if unable is not None:
            raise LockstepError(f"rank {unable[0]} cannot take part in {what} ({unable[1]})")
        if any(p != mine for p in plans):
            other = next(r for r, p in enumerate(plans) if p != mine)
            raise LockstepError(f"ranks disagree on {what}: rank {self.rank} and rank {other} would run different "
                                "collectives (timing them would hang)")

    def wait_device(self, event: Any = None) -> None:
        """Wait for this rank's GPU (or ``event``) at most ``limit_s``: a peer that stopped in the middle of a
        collective leaves it unfinished, and a plain synchronize would wait for it forever."""
        import time

        import torch

        if event is None:
            event = torch.cuda.Event()
            event.record()
        deadline = time.monotonic() + self.limit_s
        while not event.query():
            if time.monotonic() > deadline:
                self.failed = (f"the GPU did not finish within {self.limit_s:g} s: a rank stopped in the middle of "
                               "a collective (its stream stays blocked until NCCL's own timeout)")
                raise LockstepError(self.failed)
            time.sleep(0.0005)

    def align_devices(self) -> None:
        """Line the ranks' GPUs up: an all-reduce of one number on the default group (NCCL), after which
        every device starts the next work at the same moment, whatever each host's delay in getting there."""
        import torch
        import torch.distributed as dist

        if "nccl" not in str(dist.get_backend()):
            return
        if self._token is None:
            self._token = torch.zeros(1, device=f"cuda:{torch.cuda.current_device()}")
        dist.all_reduce(self._token)

    def most(self, what: str, value: float) -> float:
        """The largest of every rank's ``value`` (e.g. the repetitions each would make, so all make as many)."""
        return max(float(p) for p in self.meet(what, repr(float(value))))


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
