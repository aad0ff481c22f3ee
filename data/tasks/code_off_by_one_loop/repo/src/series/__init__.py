"Time-series helpers for the sensor dashboard."
