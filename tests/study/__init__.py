"""Tests of `twosat_formal/study/`."""
