"""Tests of `twosat_formal/_util/`."""
