"""Tests of `twosat_formal/integrations/`."""
