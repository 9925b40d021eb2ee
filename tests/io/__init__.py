"""Tests of `twosat_formal/io/`."""
