NOW = '2024-06-01T00:00:00'   # the application clock (ISO timestamps compare as strings)
