"""The language files: ``fr.toml`` (the reference), ``en.toml``; read by :mod:`unit.i18n`."""
