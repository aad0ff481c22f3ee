"Descriptive statistics for the weekly report."
