"""Tests of the package as a whole: layers, documented layout, scripts, end to end."""
