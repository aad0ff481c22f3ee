"Arithmetic helpers for the till."
