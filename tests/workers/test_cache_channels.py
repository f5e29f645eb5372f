"""No channel through the kernel's caches (issue 26): page cache, negative dentries, inodes, and
the sharing of mapped pages.

Each scenario sends random bits from a sender sandbox to a receiver sandbox through four channels
at once (see ``cache_probe``): two seats of one match (both alive, in two slots), and two matches
in a row, in the same slot (the receiver reuses the root the sender had: checked) and in another
slot. The positive control first runs the same bots on one shared root on the host's disk (as
every sandbox had the host's /usr/lib and interpreter before): the decoders must read the bits
there, which proves they work. A second control shares one read-only tmpfs between the sandboxes
(one runtime per worker): its pages, dentries and inodes are pinned, but the seats of one match
still read each other's bits through the sharing of mapped pages (``/proc/self/smaps``), which is
why each slot has a root of its own. Then the sandbox as it is: every decoder must do no better
than chance.

The bound: ``BITS`` = 256 bits per scenario and channel, half of them ones in a random order (a
decoder that always answers the same, as a blind one on an always-warm tmpfs does, scores exactly
128; with independent random bits it scored the bits' imbalance, 128 +- 8 again, and the four
channels failed together when the draw was lopsided). A decoder at chance gets 128 +- 8 right;
the test fails from ``LIMIT`` = 149 right (a chance decoder reaches it with probability 0.4%). A
channel of 1 bit a second, at one attempt per 100 ms decision (0.1 bit per attempt: a binary
channel with 31.6% errors), would get 175 +- 7.4 right: it passes the limit with probability
above 99.9%.
"""

from __future__ import annotations

import os
import random

import pytest

from tests.workers.cache_probe import (
    CHANNELS,
    PROBE_BOT,
    Probe,
    SharedRoot,
    files_needed,
    make_groups,
    probe_runtime,
    score,
)
from workers.sandbox import acquire_slot, bwrap_path
from workers.sandbox.rootfs import can_mount

pytestmark = [
    pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed"),
    pytest.mark.skipif(not can_mount(), reason="private roots and the shared control need root"),
]

BITS = 256
LIMIT = 149
PER_PAIR = 16                     # bits per sender/receiver pair when they are two matches in a row
CONTROL_BITS = 64
RUNTIME = probe_runtime(files_needed(BITS))


def balanced_bits(count: int) -> list[int]:
    """``count`` bits in a random order, half of them ones: a decoder that answers the same
    whatever it reads (a channel it cannot see) scores exactly half, never a lucky imbalance."""
    return random.sample([0, 1] * (count // 2), count)


@pytest.fixture
def bot(tmp_path):
    path = tmp_path / "probe.py"
    path.write_text(PROBE_BOT)
    return path


def seats_of_one_match(bot, bits: list[int], tag: str) -> dict[str, int]:
    """Sender and receiver alive together (two slots), as the seats of one match: the sender
    keeps its mappings while the receiver decodes."""
    sender, receiver = Probe(bot, RUNTIME), Probe(bot, RUNTIME)
    totals = dict.fromkeys(CHANNELS, 0)
    try:
        for start in range(0, len(bits), PER_PAIR):
            chunk = bits[start:start + PER_PAIR]
            groups = make_groups(chunk, files_needed(start), f"{tag}-{start}")
            sender.ask({"op": "send", "groups": groups.send})
            decoded = receiver.ask({"op": "receive", "groups": groups.receive})["bits"]
            for channel, right in score(groups, decoded).items():
                totals[channel] += right
    finally:
        sender.close()
        receiver.close()
    return totals


def matches_in_a_row(bot, bits: list[int], tag: str, same_slot: bool, fresh_files: bool,
                     check_roots: bool = False) -> dict[str, int]:
    """A sender's sandbox ends, then the receiver's starts: in the same slot, or in another one."""
    totals = dict.fromkeys(CHANNELS, 0)
    for start in range(0, len(bits), PER_PAIR):
        chunk = bits[start:start + PER_PAIR]
        groups = make_groups(chunk, files_needed(start) if fresh_files else 0, f"{tag}-{start}")
        sender = Probe(bot, RUNTIME)
        index = sender.process.slot.index
        try:
            sent_from = sender.ask({"op": "send", "groups": groups.send})["root"]
        finally:
            sender.close()
        slot = acquire_slot(index=index if same_slot else (index + 1) % 64)
        receiver = Probe(bot, RUNTIME, slot=slot)
        try:
            answer = receiver.ask({"op": "receive", "groups": groups.receive})
        finally:
            receiver.close()
        decoded = answer["bits"]
        if check_roots:
            # One slot: the receiver's root is the very tmpfs the sender's was (reused); two slots: not.
            assert (answer["root"] == sent_from) == same_slot, (answer["root"], sent_from)
        for channel, right in score(groups, decoded).items():
            totals[channel] += right
    return totals


SCENARIOS = {
    "two_seats_of_one_match": lambda bot, bits, tag, fresh: seats_of_one_match(bot, bits, tag),
    "two_matches_in_a_row_in_one_slot": lambda bot, bits, tag, fresh: matches_in_a_row(
        bot, bits, tag, True, fresh, check_roots=not fresh),
    "two_matches_in_a_row_in_two_slots": lambda bot, bits, tag, fresh: matches_in_a_row(
        bot, bits, tag, False, fresh, check_roots=not fresh),
}


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_the_decoder_reads_the_bits_through_a_shared_root(scenario, bot, tmp_path, monkeypatch):
    """Positive control: with one root shared by the sandboxes, the bits go through."""
    shared = SharedRoot(RUNTIME, str(bot), tmp_path / "shared")
    shared.patch(monkeypatch)
    bits = balanced_bits(CONTROL_BITS)
    shared.mount()
    try:
        right = SCENARIOS[scenario](bot, bits, f"control-{os.getpid()}", True)
    finally:
        shared.unmount()
    print(f"{scenario}, shared root: {right} right of {CONTROL_BITS}")
    assert right["page_cache"] >= 0.75 * CONTROL_BITS, right     # 48 of 64: 4 sd above chance (32 +- 4)
    assert right["negative_dentry"] >= 0.85 * CONTROL_BITS, right
    assert right["inode_and_dentry"] >= 0.75 * CONTROL_BITS, right
    if scenario == "two_seats_of_one_match":     # a mapping lives only as long as its process
        assert right["shared_mapping"] >= 0.85 * CONTROL_BITS, right


def test_one_runtime_tmpfs_shared_by_the_seats_leaks_through_their_mappings(bot, tmp_path, monkeypatch):
    """Second control: one read-only tmpfs shared by every sandbox. Its pages, dentries and inodes
    are pinned (the three timing decoders read nothing better than a coin would, or little), but a
    seat sees in its own smaps whether the other seat maps the same pages."""
    shared = SharedRoot(RUNTIME, str(bot), tmp_path / "shared", tmpfs=True)
    shared.patch(monkeypatch)
    bits = balanced_bits(CONTROL_BITS)
    try:
        right = seats_of_one_match(bot, bits, f"tmpfs-{os.getpid()}")
    finally:
        shared.unmount()
    print(f"two_seats_of_one_match, one shared tmpfs: {right} right of {CONTROL_BITS}")
    assert right["shared_mapping"] >= 0.85 * CONTROL_BITS, right


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_no_bit_goes_through_the_caches_between_sandboxes(scenario, bot):
    bits = balanced_bits(BITS)
    right = SCENARIOS[scenario](bot, bits, f"real-{os.getpid()}", scenario == "two_seats_of_one_match")
    print(f"{scenario}, private roots: {right} right of {BITS} (limit {LIMIT})")
    for channel, count in right.items():
        assert count < LIMIT, f"{channel}: {count} of {BITS} bits decoded (chance: 128 +- 8)"
