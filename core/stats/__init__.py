"""Pure statistics every layer may use (the Wilson interval and a rate with its denominator).

It sits with the pure helpers at the bottom of the core, below ``core.domain``: the replay
engine, the metrics, the agreement protocol and the report all read the same interval, and
nothing here imports anything of the core.
"""
