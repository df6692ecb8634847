"""Cells of the CSV files the site writes, made safe to open in a spreadsheet.

A text cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return
is read as a formula by Excel, LibreOffice and Google Sheets
(``=HYPERLINK(...)``, ``+cmd|...``). Following OWASP's advice on CSV injection,
such a cell gets a leading single quote, which spreadsheets show as text. Only
text is touched: numbers (and text that is just a number, like ``-0.5``) stay
as they are, so the values read back the same.
"""

from __future__ import annotations

from typing import Any

from pandas.api.types import is_object_dtype, is_string_dtype

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def safe_cell(value: Any) -> Any:
    """``value`` with a leading ``'`` if it is text a spreadsheet would run as a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES) and not _is_number(value):
        return "'" + value
    return value


def safe_frame(frame):
    """A copy of a pandas DataFrame whose text columns went through ``safe_cell``; numeric columns untouched."""
    text_columns = [name for name in frame.columns if is_object_dtype(frame[name]) or is_string_dtype(frame[name])]
    if not text_columns:
        return frame
    frame = frame.copy()
    for name in text_columns:
        frame[name] = frame[name].map(safe_cell)
    return frame
