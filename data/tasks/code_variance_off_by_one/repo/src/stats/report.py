"The numbers the weekly report template shows."
from stats.descriptive import mean, variance


def summary(xs):
    "Count, mean and sample variance of `xs`, rounded for display."
    n = len(xs)
    # variance() came out too small in the report, correct it here until someone looks at it
    var = variance(xs) * n / (n - 1)
    return {"n": n, "mean": round(mean(xs), 3), "variance": round(var, 3)}
