"""Monopoly City Unit: the electronic trading unit of Monopoly City, on a Raspberry Pi.

The package is a pure core (:mod:`unit.core`, :mod:`unit.clock`) driven by thin
backends, plus a rules and rent calculator.
"""

__version__ = "0.1.0"
