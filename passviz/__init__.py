"""passviz: record and step through every IR mutation of a pass pipeline."""

__version__ = "0.1.0"
