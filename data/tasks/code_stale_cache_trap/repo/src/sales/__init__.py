"Per-region sales totals."
