"""The sections of a report, one module each: what a section shows, computed from the
rows, and how it is written as blocks.

:mod:`~twosat_formal.report.content` computes every section's part of the
:class:`~twosat_formal.report.content.ReportContent`;
:func:`~twosat_formal.report.render.layout` lists the sections in order and calls each
one's writer. :mod:`.common` and :mod:`.format` hold what the sections share (the
computations and the writing); :mod:`.armtests` and :mod:`.comparisons` what the three
comparison sections (clause order, fillers, duplication) share.
"""
