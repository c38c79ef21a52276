"""Evaluation of the topic classifier and the hardware suggestion on the labelled splits in
fixtures/eval/ (run by bench/eval_topics.py and bench/eval_hardware.py, and by the unit tests)."""
