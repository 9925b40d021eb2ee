"""Tests of `twosat_formal/report/`."""
