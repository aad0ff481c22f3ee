"Java-compatible String.hashCode, so Python workers pick the same shard as the Java service."


def java_string_hash(s):
    "Java's String.hashCode(): s[0]*31^(n-1) + ... + s[n-1] in signed 32-bit int arithmetic."
    h = 0
    for ch in s:
        h = 31 * h + ord(ch)
    return h


def shard(s, n_shards):
    "Shard of key `s`: Math.floorMod(s.hashCode(), n_shards), as the Java service computes it."
    return java_string_hash(s) % n_shards
