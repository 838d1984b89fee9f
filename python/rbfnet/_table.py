"""Raw tabular X (DataFrames with text or category columns, missing values) as what rbfnet's
encoding reads: one float64 matrix with NaN where a number is missing, and the text columns
as (index, cells) pairs, "" where a cell is missing. The encoding itself (one-hot levels,
filled values) is rbfnet's C++ code, the same as the command line's, and lives in the model."""
import numbers

import numpy as np


def _missing(value):
    if value is None:
        return True
    try:
        return bool(value != value)  # NaN, pandas' NA and NaT are not equal to themselves
    except TypeError:  # pandas.NA's comparison raises in a boolean context
        return True


def _is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _level_text(value):
    """A category's text, as the CSV reader sees the cell: numbers in their shortest form."""
    if not isinstance(value, (str, bytes, bool, np.bool_, numbers.Real)):
        raise TypeError("X holds %r, a %s: a cell's argument must be a string or a number (or missing)"
                        % (value, type(value).__name__))
    if _is_number(value):
        value = float(value)
        return str(int(value)) if value.is_integer() and abs(value) < 2**53 else repr(value)
    return str(value)


def is_table(X):
    """Whether X holds columns that are not numbers (text, categories, booleans, objects)."""
    dtypes = getattr(X, "dtypes", None)
    if dtypes is not None and hasattr(X, "columns"):
        from pandas.api.types import is_bool_dtype, is_numeric_dtype

        return any(not is_numeric_dtype(t) or is_bool_dtype(t) for t in dtypes)
    dtype = getattr(X, "dtype", None)
    if dtype is None:
        dtype = np.asarray(X).dtype
    return dtype.kind in "OUSb"


def split_columns(X, text_columns=()):
    """(numbers, text) from a validated 2-D X (object or numeric). A column becomes text when it
    holds a value that is not a number, or when its index is in `text_columns` (a model's
    categories, whatever these rows hold)."""
    X = np.asarray(X)
    rows, cols = X.shape
    forced = set(text_columns)
    if X.dtype.kind in "fiu" and not forced:
        return np.ascontiguousarray(X, dtype=np.float64), []
    numbers_out = np.full((rows, cols), np.nan)
    text = []
    for j in range(cols):
        column = X[:, j]
        missing = [_missing(v) for v in column]
        is_text = j in forced or any(not m and not _is_number(v) for v, m in zip(column, missing))
        if is_text:
            text.append((j, ["" if m else _level_text(v) for v, m in zip(column, missing)]))
        else:
            numbers_out[:, j] = [np.nan if m else float(v) for v, m in zip(column, missing)]
    return numbers_out, text
