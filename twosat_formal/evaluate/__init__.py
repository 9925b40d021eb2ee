"""Evaluation: runs of models (:mod:`.run`), the models, the judgement (scoring,
diagnostics), the run store and its exports, the gate before a judgement."""
