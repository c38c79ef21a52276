"""The Textual app (the only package that imports Textual).

Frame pacing is set here, before any module of the package imports Textual (Textual reads
`TEXTUAL_FPS` once, when it is first imported). Textual paints a change at the next tick of a
frame timer, at most TEXTUAL_FPS times a second (60 by default), and a keystroke's new list
takes two frames: the search box's echo, then the rows a worker found. At 60 the ticks were
~20 of the ~30 ms from a key to its painted list at 100,000 papers; at 240 the key is painted in
~13 ms (bench/bench_keystroke.py, docs/performance.md). A frame is painted only when something
changed, so an idle app costs nothing more. A reader's own TEXTUAL_FPS is kept.
"""

import os

os.environ.setdefault("TEXTUAL_FPS", "240")
