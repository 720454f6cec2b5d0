"""Canonical text of values (the format of test/compat/canonical.ts) for pyfluss: from canonical
text to the Python values pyfluss writes, and from what pyfluss reads (Python objects, or Arrow
arrays) back to canonical text."""

import datetime as dt
import json
import struct
from decimal import Decimal

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from dataset import decimal_text, float_text
from fluss_type import FlussType

EPOCH_DATE = dt.date(1970, 1, 1)
EPOCH = dt.datetime(1970, 1, 1)
EPOCH_UTC = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def spec_type(text):
    """A FlussType from the spec syntax (`DECIMAL(10, 2)`, `INT`, `ARRAY<ROW<a INT, b STRING>>`)."""
    return FlussType(text)


def _json_text(values):
    """The compact JSON text of a nested value's canonical parts, as TypeScript's JSON.stringify."""
    return json.dumps(values, separators=(",", ":"), ensure_ascii=False)


def to_python(s, t):
    """The Python value pyfluss writes for canonical text s of FlussType t."""
    if s is None:
        return None
    r = t.root
    if t.nested:
        parts = json.loads(s)
        if r == "array":
            return [to_python(e, t.element) for e in parts]
        if r == "map":
            return [(to_python(k, t.key), to_python(v, t.value)) for k, v in parts]
        return {name: to_python(v, ft) for (name, ft), v in zip(t.fields, parts)}
    if r == "boolean":
        return s == "true"
    if r in ("tinyint", "smallint", "int", "bigint"):
        return int(s)
    if r in ("float", "double"):
        if s == "NaN":
            return float("nan")
        bits = int(s, 16)
        return struct.unpack("<d", struct.pack("<Q", bits))[0] if r == "double" else struct.unpack("<f", struct.pack("<I", bits))[0]
    if r == "decimal":
        return Decimal(s)
    if r in ("char", "string"):
        return s
    if r in ("binary", "bytes"):
        return bytes.fromhex(s)
    if r == "date":
        return EPOCH_DATE + dt.timedelta(days=int(s))
    if r == "time":
        ms = int(s)
        return dt.time(ms // 3_600_000, ms // 60_000 % 60, ms // 1000 % 60, ms % 1000 * 1000)
    nanos = int(s)
    aware = r == "timestamp_ltz"
    if nanos % 1_000_000 != 0:
        # pyfluss converts a datetime before 1970 with a sub-millisecond part into a negative
        # nano-of-millisecond and fails; its pandas path splits epoch nanos correctly.
        return pd.Timestamp(nanos, unit="ns", tz="UTC" if aware else None)
    return (EPOCH_UTC if aware else EPOCH) + dt.timedelta(microseconds=nanos // 1000)


def decimal_canonical(d, scale):
    sign, digits, exponent = d.as_tuple()
    unscaled = int("".join(map(str, digits)) or "0") * (-1 if sign else 1)
    if exponent + scale < 0:
        return "%s (scale %d, expected %d)" % (d, -exponent, scale)
    return decimal_text(unscaled * 10 ** (exponent + scale), scale)


def _delta_nanos(delta):
    return ((delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds) * 1000


def from_python(v, t):
    """Canonical text of a value pyfluss read (row dicts hold Python objects: datetimes carry µs)."""
    if v is None:
        return None
    r = t.root
    if r == "array":
        return _json_text([from_python(e, t.element) for e in v])
    if r == "map":
        pairs = v.items() if isinstance(v, dict) else v
        # A MAP has no order: entries by the canonical text of their keys, as the other drivers.
        return _json_text(sorted(([from_python(k, t.key), from_python(e, t.value)] for k, e in pairs),
                                 key=lambda p: p[0].encode("utf-16-be")))
    if r == "row":
        return _json_text([from_python(v.get(name), ft) for name, ft in t.fields])
    if r == "boolean":
        return "true" if v else "false"
    if r in ("float", "double"):
        return float_text(v, r == "double")
    if r == "decimal":
        return decimal_canonical(v, t.m or 0)
    if r in ("binary", "bytes"):
        return bytes(v).hex()
    if r == "date":
        return str((v - EPOCH_DATE).days)
    if r == "time":
        return str(((v.hour * 60 + v.minute) * 60 + v.second) * 1000 + v.microsecond // 1000)
    if r in ("timestamp", "timestamp_ltz"):
        if isinstance(v, pd.Timestamp):
            return str(v.value)
        return str(_delta_nanos(v - (EPOCH_UTC if v.tzinfo is not None else EPOCH)))
    return str(v)


_TIME_NANOS = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1000, "ns": 1}


def to_arrow(values, t):
    """An Arrow array of Arrow type t from canonical texts (exact, nanoseconds included)."""
    def ints(scale, width):
        return pa.array([None if v is None else int(v) * scale[0] // scale[1] for v in values], width)

    if pa.types.is_time(t):
        per_unit = _TIME_NANOS[t.unit]
        return ints((1_000_000, per_unit), pa.int32() if t.bit_width == 32 else pa.int64()).view(t)
    if pa.types.is_timestamp(t):
        return ints((1, _TIME_NANOS[t.unit]), pa.int64()).view(t)
    if pa.types.is_date32(t):
        return ints((1, 1), pa.int32()).view(t)
    if pa.types.is_boolean(t):
        return pa.array([None if v is None else v == "true" for v in values], t)
    if pa.types.is_floating(t):
        kind = "double" if pa.types.is_float64(t) else "float"
        return pa.array([to_python(v, FlussType(kind)) for v in values], t)
    if pa.types.is_decimal(t):
        return pa.array([None if v is None else Decimal(v) for v in values], t)
    if pa.types.is_binary(t) or pa.types.is_fixed_size_binary(t):
        return pa.array([None if v is None else bytes.fromhex(v) for v in values], t)
    if pa.types.is_integer(t):
        return pa.array([None if v is None else int(v) for v in values], t)
    return pa.array(values, t)


def from_arrow(array):
    """Canonical texts of an Arrow column (exact for every type, nanoseconds included)."""
    t = array.type
    valid = array.is_valid().to_pylist()
    if pa.types.is_boolean(t):
        values = ["true" if v else "false" for v in array.to_pylist()]
    elif pa.types.is_integer(t):
        values = [str(v) for v in array.to_pylist()]
    elif pa.types.is_floating(t):
        double = pa.types.is_float64(t)
        values = [float_text(v, double) if v is not None else None for v in array.to_pylist()]
    elif pa.types.is_decimal(t):
        values = [decimal_canonical(v, t.scale) if v is not None else None for v in array.to_pylist()]
    elif pa.types.is_string(t) or pa.types.is_large_string(t):
        values = array.to_pylist()
    elif pa.types.is_binary(t) or pa.types.is_fixed_size_binary(t) or pa.types.is_large_binary(t):
        values = [v.hex() if v is not None else None for v in array.to_pylist()]
    elif pa.types.is_date32(t):
        values = [str(v) for v in pc.cast(array, pa.int32()).to_pylist()]
    elif pa.types.is_time(t):
        nanos_per_unit = _TIME_NANOS[t.unit]
        raw = pc.cast(array, pa.int32() if t.bit_width == 32 else pa.int64()).to_pylist()
        values = [str(v * nanos_per_unit // 1_000_000) if v is not None and v * nanos_per_unit % 1_000_000 == 0
                  else "%s%s" % (v, t.unit) for v in raw]
    elif pa.types.is_timestamp(t):
        nanos_per_unit = _TIME_NANOS[t.unit]
        values = [str(v * nanos_per_unit) if v is not None else None for v in pc.cast(array, pa.int64()).to_pylist()]
    else:
        raise ValueError("unsupported Arrow type %s" % t)
    return [v if ok else None for v, ok in zip(values, valid)]
