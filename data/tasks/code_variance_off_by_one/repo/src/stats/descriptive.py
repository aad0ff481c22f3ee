"Mean, sample variance, standard deviation and z-scores of a list of numbers."
import math


def mean(xs):
    "Arithmetic mean of `xs`."
    if not xs:
        raise ValueError("mean of empty data")
    return sum(xs) / len(xs)


def variance(xs):
    "Sample variance of `xs` (Bessel-corrected: divides by n - 1)."
    if len(xs) < 2:
        raise ValueError("variance needs at least two values")
    m = mean(xs)
    return sum((x - m) ** 2 for x in xs) / len(xs)


def std(xs):
    "Sample standard deviation of `xs`."
    return math.sqrt(variance(xs))


def zscores(xs):
    "Each value of `xs` as its distance from the mean in standard deviations."
    m, s = mean(xs), std(xs)
    return [(x - m) / s for x in xs]
