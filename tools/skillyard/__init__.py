"""Skillyard: the registry toolchain (`skillyard`) and client (`skill`) for AI agent skills."""

__version__ = "0.1.0"
