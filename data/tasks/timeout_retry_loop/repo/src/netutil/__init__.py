"Client-side helpers for flaky services."
