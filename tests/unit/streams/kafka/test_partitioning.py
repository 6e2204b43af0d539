"""streams/kafka/partitioning.py: the partition Kafka's default partitioner gives a key."""

from __future__ import annotations

import pytest

from streams.kafka.partitioning import partition_of


@pytest.mark.parametrize(("key", "partitions", "partition"), [
    # murmur2 values from Kafka's own UtilsTest.testMurmur2 (the Java client's partitioner):
    # "21" -> -973932308, "foobar" -> -790332482, "a-little-bit-long-string" -> -985981536;
    # partition = (hash & 0x7fffffff) % partitions
    ("21", 4, 0),  # 1173551340 % 4
    ("21", 7, 3),  # 1173551340 % 7
    ("foobar", 4, 2),  # 1357151166 % 4
    ("foobar", 10, 6),
    ("a-little-bit-long-string", 3, 2),  # 1161502112 % 3
])
def test_a_key_goes_to_the_partition_the_java_client_gives_it(key: str, partitions: int, partition: int) -> None:
    assert partition_of(key, partitions) == partition
