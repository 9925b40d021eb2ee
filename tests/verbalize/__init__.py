"""Tests of `twosat_formal/verbalize/`."""
