"""The partition Kafka's default partitioner gives a key, for the steps that must know which keys a partition holds
(the validator's open episodes per packets partition; injected into stages/episodes.py, which imports no Kafka)."""

from __future__ import annotations

from aiokafka.partitioner import murmur2


def partition_of(key: str, partitions: int) -> int:
    """The partition the producers' default partitioner (murmur2, as in the Java client) gives a key."""
    return (int(murmur2(key.encode("utf-8"))) & 0x7FFFFFFF) % partitions
