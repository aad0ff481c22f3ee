"Hashes compatible with the Java order service."
