"""Tests of `twosat_formal/evaluate/`."""
