"""Tests of `twosat_formal/certify/`."""
