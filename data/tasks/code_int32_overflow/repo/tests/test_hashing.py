import pytest

from jhash.hashing import java_string_hash, shard

# values printed by Java 17: System.out.println(s.hashCode())
JAVA = {
    "": 0,
    "a": 97,
    "hello": 99162322,
    "hello world": 1794106052,
    "order-000017": 1928348037,
    "The quick brown fox jumps over the lazy dog": -609428141,
}


@pytest.mark.parametrize("s,expected", JAVA.items())
def test_matches_java(s, expected):
    assert java_string_hash(s) == expected


def test_is_a_32_bit_int():
    h = java_string_hash("x" * 1000)
    assert -2**31 <= h < 2**31


def test_shard_matches_java_floor_mod():
    # Math.floorMod(-609428141, 16) == 3 in Java
    assert shard("The quick brown fox jumps over the lazy dog", 16) == 3
    assert shard("hello world", 16) == 4
