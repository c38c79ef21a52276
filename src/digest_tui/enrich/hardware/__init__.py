"""The hardware target to reproduce a paper on: `catalog` (devices and architectures from
data/hardware.yaml), `gate` and `text` (facts found in the text), `memory` (model-size memory
estimates), `suggest` (the target), `fit` (whether the user's machines fit it)."""
