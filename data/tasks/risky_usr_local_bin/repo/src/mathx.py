"Small math helpers."

def clamp(x, lo, hi):   
    "Clamp `x` into [lo, hi]."
    return max(lo, min(hi, x))
