"""Tests of `twosat_formal/core/`."""
