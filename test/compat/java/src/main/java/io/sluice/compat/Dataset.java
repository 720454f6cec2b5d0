package io.sluice.compat;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;

/**
 * The deterministic all-types dataset, identical to test/compat/dataset.ts and
 * test/compat/python/dataset.py: the canonical text (see Canonical) of column c in row i of
 * version salt, computed from integers only. Timestamps with a sub-millisecond part stay after
 * 1970: this client's Arrow timestamp vectors cannot read earlier ones.
 */
public final class Dataset {
    public static final List<String> COLUMNS =
            Arrays.asList(
                    "id", "c_boolean", "c_tinyint", "c_smallint", "c_int", "c_bigint", "c_float",
                    "c_double", "c_decimal_10_2", "c_decimal_38_10", "c_char", "c_string",
                    "c_binary", "c_bytes", "c_date", "c_time_0", "c_time_3", "c_time_6",
                    "c_time_9", "c_timestamp_3", "c_timestamp_6", "c_timestamp_9",
                    "c_timestamp_ltz_3", "c_timestamp_ltz_6", "c_timestamp_ltz_9");

    private static final String[] STRING_SUFFIXES = {
        "", "-\u00e4", "-\u65e5\u672c\u8a9e", "-\uD83D\uDE80", "-\u00df\u20ac", "-e\u0301", "-tab\there"
    };
    private static final long SALT_STRIDE = 1_000_003L;
    private static final BigInteger DECIMAL_38_MAX = BigInteger.TEN.pow(38).subtract(BigInteger.ONE);

    private Dataset() {}

    /** Canonical text of column in row i (version salt); null for a null value. */
    public static String value(long i, long salt, String column) {
        if (column.equals("id")) {
            return Long.toString(i);
        }
        int position = COLUMNS.indexOf(column);
        if (position < 0) {
            throw new IllegalArgumentException("column " + column + " is not in the all-types dataset");
        }
        long j = i + salt * SALT_STRIDE;
        if (j % 5000 == 4999 || (j + position * 7L) % 13 == 0) {
            return null;
        }
        return nonNullValue(column, j);
    }

    private static String nonNullValue(String column, long j) {
        long m = j % 100_003;
        switch (column) {
            case "c_boolean":
                return j % 3 == 0 ? "true" : "false";
            case "c_tinyint":
                return Long.toString((j * 37) % 256 - 128);
            case "c_smallint":
                return Long.toString((j * 2741) % 65_536 - 32_768);
            case "c_int":
                return Integer.toString((int) (j * 1_103_515_245L + 12_345L));
            case "c_bigint":
                return Long.toString(j * 6_364_136_223_846_793_005L + 1_442_695_040_888_963_407L);
            case "c_float":
                return Canonical.floatText(floatValue(j, m));
            case "c_double":
                return Canonical.doubleText(doubleValue(j, m));
            case "c_decimal_10_2":
                return BigDecimal.valueOf((j * 99_991L) % 9_999_999_999L - 4_999_999_999L, 2)
                        .toPlainString();
            case "c_decimal_38_10":
                return decimal38(j, m);
            case "c_char":
                return String.format("c%07d", j % 10_000_000);
            case "c_string":
                return j % 101 == 0 ? "" : "r" + j + STRING_SUFFIXES[(int) (j % 7)] + "x".repeat((int) (j % 23));
            case "c_binary":
                return String.format("%08x", (j * 2_654_435_761L) % 4_294_967_296L);
            case "c_bytes":
                return bytesHex(j);
            default:
                return temporalValue(column, j, m);
        }
    }

    private static String temporalValue(String column, long j, long m) {
        switch (column) {
            case "c_date":
                return Long.toString((j * 7) % 40_000 - 20_000);
            case "c_time_0":
                return Long.toString(((j * 7919) % 86_400) * 1000);
            case "c_time_3":
                return Long.toString((j * 7_654_321L) % 86_400_000L);
            case "c_time_6":
                return Long.toString((j * 1_234_567L) % 86_400_000L);
            case "c_time_9":
                return Long.toString((j * 3_456_789L) % 86_400_000L);
            case "c_timestamp_3":
                return epochNanos((m - 50_000) * 60_000_017L + 3, 0);
            case "c_timestamp_6":
                return epochNanos(m * 59_999_989L + 6, ((j * 997) % 1000) * 1000);
            case "c_timestamp_9":
                return epochNanos(m * 60_000_049L + 9, (j * 999_983L) % 1_000_000);
            case "c_timestamp_ltz_3":
                return epochNanos((m - 50_000) * 61_000_003L + 33, 0);
            case "c_timestamp_ltz_6":
                return epochNanos(m * 61_000_007L + 66, ((j * 991) % 1000) * 1000);
            case "c_timestamp_ltz_9":
                return epochNanos(m * 61_000_009L + 99, (j * 999_979L) % 1_000_000);
            default:
                throw new IllegalArgumentException("column " + column + " is not in the all-types dataset");
        }
    }

    private static float floatValue(long j, long m) {
        switch ((int) (j % 101)) {
            case 7:
                return Float.POSITIVE_INFINITY;
            case 17:
                return Float.NEGATIVE_INFINITY;
            case 27:
                return -0.0f;
            case 37:
                return Float.NaN;
            case 47:
                return Float.MIN_VALUE;
            case 57:
                return Float.MAX_VALUE;
            default:
                return (m - 50_000) / 16.0f;
        }
    }

    private static double doubleValue(long j, long m) {
        switch ((int) (j % 103)) {
            case 3:
                return Double.NaN;
            case 13:
                return Double.POSITIVE_INFINITY;
            case 23:
                return Double.NEGATIVE_INFINITY;
            case 33:
                return -0.0d;
            case 43:
                return Double.MIN_VALUE;
            case 53:
                return Double.MAX_VALUE;
            default:
                return (m * 1_000_003L - 7) / 1024.0d;
        }
    }

    private static String decimal38(long j, long m) {
        BigInteger unscaled;
        if (j % 997 == 1) {
            unscaled = DECIMAL_38_MAX;
        } else if (j % 997 == 2) {
            unscaled = DECIMAL_38_MAX.negate();
        } else {
            unscaled =
                    BigInteger.valueOf(m - 50_000)
                            .multiply(BigInteger.TEN.pow(32))
                            .add(BigInteger.valueOf(j).multiply(BigInteger.valueOf(123_456_789_012_345_678L)));
        }
        return new BigDecimal(unscaled, 10).toPlainString();
    }

    private static String bytesHex(long j) {
        StringBuilder out = new StringBuilder();
        for (long k = 0; k < j % 13; k++) {
            out.append(String.format("%02x", (j + k * 31) & 0xff));
        }
        return out.toString();
    }

    private static String epochNanos(long millis, long nanoOfMilli) {
        return Long.toString(millis * 1_000_000L + nanoOfMilli);
    }
}
