"Counts over plain text."
