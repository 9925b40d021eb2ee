"""Tests of `twosat_formal/make/`."""
