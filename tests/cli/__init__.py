"""Tests of `twosat_formal/cli/`."""
