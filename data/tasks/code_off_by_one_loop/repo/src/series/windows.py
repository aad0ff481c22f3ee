"Sliding windows over a series and the moving average built on them."


def sliding_windows(xs, k):
    "All contiguous windows of length `k` of `xs`, in order."
    if k <= 0:
        raise ValueError("k must be positive")
    return [xs[i:i + k] for i in range(len(xs) - k)]


def moving_average(xs, k):
    "Mean of each window of length `k`: len(xs) - k + 1 values."
    return [sum(w) / k for w in sliding_windows(xs, k)]
