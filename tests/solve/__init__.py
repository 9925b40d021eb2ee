"""Tests of `twosat_formal/solve/`."""
