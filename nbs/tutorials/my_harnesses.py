"""H6, a harness of your own: H0 that shows only the last 200 characters of each command's output.

Load it with `imports = ["my_harnesses.py"]` in a sweep config (relative to the config) or with
`hibd run CONFIG --import my_harnesses.py`; the tutorial "Author a harness" (04_author_harness) runs it."""
from hibd.harness import TrimmedObservation
from hibd.harnesses import H0, variant, register_harness

H6 = register_harness(variant(H0, 'H6', 'tail-200', observe=TrimmedObservation(tail=200)))
