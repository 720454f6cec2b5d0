"""The deterministic all-types dataset, identical to test/compat/dataset.ts and
java/src/main/java/io/sluice/compat/Dataset.java: the canonical text (see canonical.py) of
column c in row i of version salt, computed from integers only. Timestamps with a sub-millisecond
part stay after 1970 (the Fluss Java client cannot read earlier ones)."""

import struct

COLUMNS = [
    ("id", "INT", False),
    ("c_boolean", "BOOLEAN", True),
    ("c_tinyint", "TINYINT", True),
    ("c_smallint", "SMALLINT", True),
    ("c_int", "INT", True),
    ("c_bigint", "BIGINT", True),
    ("c_float", "FLOAT", True),
    ("c_double", "DOUBLE", True),
    ("c_decimal_10_2", "DECIMAL(10, 2)", True),
    ("c_decimal_38_10", "DECIMAL(38, 10)", True),
    ("c_char", "CHAR(8)", True),
    ("c_string", "STRING", True),
    ("c_binary", "BINARY(4)", True),
    ("c_bytes", "BYTES", True),
    ("c_date", "DATE", True),
    ("c_time_0", "TIME(0)", True),
    ("c_time_3", "TIME(3)", True),
    ("c_time_6", "TIME(6)", True),
    ("c_time_9", "TIME(9)", True),
    ("c_timestamp_3", "TIMESTAMP(3)", True),
    ("c_timestamp_6", "TIMESTAMP(6)", True),
    ("c_timestamp_9", "TIMESTAMP(9)", True),
    ("c_timestamp_ltz_3", "TIMESTAMP_LTZ(3)", True),
    ("c_timestamp_ltz_6", "TIMESTAMP_LTZ(6)", True),
    ("c_timestamp_ltz_9", "TIMESTAMP_LTZ(9)", True),
]
NAMES = [c[0] for c in COLUMNS]
POSITIONS = {name: k for k, name in enumerate(NAMES)}

STRING_SUFFIXES = ["", "-\u00e4", "-\u65e5\u672c\u8a9e", "-\U0001F680", "-\u00df\u20ac", "-e\u0301", "-tab\there"]
SALT_STRIDE = 1_000_003
FLOAT_MAX = 3.4028234663852886e38
DECIMAL_38_MAX = 10**38 - 1


def float_text(v, double):
    if v != v:
        return "NaN"
    if double:
        return "0x%016x" % struct.unpack("<Q", struct.pack("<d", v))[0]
    return "0x%08x" % struct.unpack("<I", struct.pack("<f", v))[0]


def decimal_text(unscaled, scale):
    digits = str(abs(unscaled)).rjust(scale + 1, "0")
    head, tail = digits[: len(digits) - scale], digits[len(digits) - scale :]
    sign = "-" if unscaled < 0 else ""
    return sign + head + ("." + tail if scale > 0 else "")


def _signed(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >= 1 << (bits - 1) else v


_FLOAT_SPECIALS = {7: float("inf"), 17: float("-inf"), 27: -0.0, 37: float("nan"), 47: 2.0**-149, 57: FLOAT_MAX}
_DOUBLE_SPECIALS = {3: float("nan"), 13: float("inf"), 23: float("-inf"), 33: -0.0, 43: 2.0**-1074, 53: 1.7976931348623157e308}


def _decimal38(j, m):
    if j % 997 == 1:
        return decimal_text(DECIMAL_38_MAX, 10)
    if j % 997 == 2:
        return decimal_text(-DECIMAL_38_MAX, 10)
    return decimal_text((m - 50_000) * 10**32 + j * 123_456_789_012_345_678, 10)


def _epoch_nanos(millis, nano_of_milli):
    return str(millis * 1_000_000 + nano_of_milli)


_FORMULAS = {
    "c_boolean": lambda j, m: "true" if j % 3 == 0 else "false",
    "c_tinyint": lambda j, m: str((j * 37) % 256 - 128),
    "c_smallint": lambda j, m: str((j * 2741) % 65_536 - 32_768),
    "c_int": lambda j, m: str(_signed(j * 1_103_515_245 + 12_345, 32)),
    "c_bigint": lambda j, m: str(_signed(j * 6_364_136_223_846_793_005 + 1_442_695_040_888_963_407, 64)),
    "c_float": lambda j, m: float_text(_FLOAT_SPECIALS.get(j % 101, (m - 50_000) / 16), False),
    "c_double": lambda j, m: float_text(_DOUBLE_SPECIALS.get(j % 103, (m * 1_000_003 - 7) / 1024), True),
    "c_decimal_10_2": lambda j, m: decimal_text((j * 99_991) % 9_999_999_999 - 4_999_999_999, 2),
    "c_decimal_38_10": _decimal38,
    "c_char": lambda j, m: "c%07d" % (j % 10_000_000),
    "c_string": lambda j, m: "" if j % 101 == 0 else "r%d%s%s" % (j, STRING_SUFFIXES[j % 7], "x" * (j % 23)),
    "c_binary": lambda j, m: "%08x" % ((j * 2_654_435_761) % 4_294_967_296),
    "c_bytes": lambda j, m: "".join("%02x" % ((j + k * 31) & 0xFF) for k in range(j % 13)),
    "c_date": lambda j, m: str((j * 7) % 40_000 - 20_000),
    "c_time_0": lambda j, m: str(((j * 7919) % 86_400) * 1000),
    "c_time_3": lambda j, m: str((j * 7_654_321) % 86_400_000),
    "c_time_6": lambda j, m: str((j * 1_234_567) % 86_400_000),
    "c_time_9": lambda j, m: str((j * 3_456_789) % 86_400_000),
    "c_timestamp_3": lambda j, m: _epoch_nanos((m - 50_000) * 60_000_017 + 3, 0),
    "c_timestamp_6": lambda j, m: _epoch_nanos(m * 59_999_989 + 6, ((j * 997) % 1000) * 1000),
    "c_timestamp_9": lambda j, m: _epoch_nanos(m * 60_000_049 + 9, (j * 999_983) % 1_000_000),
    "c_timestamp_ltz_3": lambda j, m: _epoch_nanos((m - 50_000) * 61_000_003 + 33, 0),
    "c_timestamp_ltz_6": lambda j, m: _epoch_nanos(m * 61_000_007 + 66, ((j * 991) % 1000) * 1000),
    "c_timestamp_ltz_9": lambda j, m: _epoch_nanos(m * 61_000_009 + 99, (j * 999_979) % 1_000_000),
}


def value(i, salt, column):
    """Canonical text of column in row i (version salt); None for a null value."""
    if column == "id":
        return str(i)
    position = POSITIONS[column]
    j = i + salt * SALT_STRIDE
    if j % 5000 == 4999 or (j + position * 7) % 13 == 0:
        return None
    return _FORMULAS[column](j, j % 100_003)


def row(i, salt=0, columns=NAMES):
    return [value(i, salt, c) for c in columns]
