"A thread-safe memo cache for the report workers."
