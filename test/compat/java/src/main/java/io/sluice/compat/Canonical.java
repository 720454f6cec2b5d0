package io.sluice.compat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.fluss.row.BinaryString;
import org.apache.fluss.row.Decimal;
import org.apache.fluss.row.GenericArray;
import org.apache.fluss.row.GenericMap;
import org.apache.fluss.row.GenericRow;
import org.apache.fluss.row.InternalArray;
import org.apache.fluss.row.InternalMap;
import org.apache.fluss.row.InternalRow;
import org.apache.fluss.row.TimestampLtz;
import org.apache.fluss.row.TimestampNtz;
import org.apache.fluss.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.fluss.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.fluss.types.ArrayType;
import org.apache.fluss.types.DataType;
import org.apache.fluss.types.DataTypeChecks;
import org.apache.fluss.types.MapType;
import org.apache.fluss.types.RowType;

/**
 * Canonical text of values (the format of test/compat/canonical.ts): integers in decimal,
 * floats as IEEE-754 bits, decimals in plain notation at the column scale, binary as hex, DATE as
 * days, TIME as milliseconds of the day, timestamps as nanoseconds since the epoch. A nested value
 * is the compact JSON text of an array: an ARRAY's elements, a MAP's [key, value] pairs ordered by
 * the text of their keys, a ROW's fields, each element, key, value or field as its own canonical text (or null).
 */
public final class Canonical {
    private Canonical() {}

    public static String floatText(float v) {
        return Float.isNaN(v) ? "NaN" : String.format("0x%08x", Float.floatToRawIntBits(v));
    }

    public static String doubleText(double v) {
        return Double.isNaN(v) ? "NaN" : String.format("0x%016x", Double.doubleToRawLongBits(v));
    }

    /** The canonical text of a Fluss internal value (as returned by InternalRow field getters). */
    public static String of(Object v, DataType type) {
        if (v == null) {
            return null;
        }
        switch (type.getTypeRoot()) {
            case FLOAT:
                return floatText((Float) v);
            case DOUBLE:
                return doubleText((Double) v);
            case DECIMAL:
                return decimalText(((Decimal) v).toBigDecimal(), DataTypeChecks.getScale(type));
            case BINARY:
            case BYTES:
                return hex((byte[]) v);
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                TimestampNtz ntz = (TimestampNtz) v;
                return Long.toString(ntz.getMillisecond() * 1_000_000L + ntz.getNanoOfMillisecond());
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                TimestampLtz ltz = (TimestampLtz) v;
                return Long.toString(ltz.getEpochMillisecond() * 1_000_000L + ltz.getNanoOfMillisecond());
            case ARRAY:
            case MAP:
            case ROW:
                return nested(v, type).toString();
            default:
                return v.toString();
        }
    }

    /** The JSON array of a nested value (see the class comment). */
    private static ArrayNode nested(Object v, DataType type) {
        ArrayNode out = Specs.JSON.createArrayNode();
        switch (type.getTypeRoot()) {
            case ARRAY: {
                DataType element = ((ArrayType) type).getElementType();
                InternalArray array = (InternalArray) v;
                InternalArray.ElementGetter getter = InternalArray.createElementGetter(element);
                for (int i = 0; i < array.size(); i++) {
                    addText(out, array.isNullAt(i) ? null : of(getter.getElementOrNull(array, i), element));
                }
                return out;
            }
            case MAP: {
                MapType mapType = (MapType) type;
                InternalMap map = (InternalMap) v;
                InternalArray keys = map.keyArray();
                InternalArray values = map.valueArray();
                InternalArray.ElementGetter key = InternalArray.createElementGetter(mapType.getKeyType());
                InternalArray.ElementGetter value = InternalArray.createElementGetter(mapType.getValueType());
                List<String[]> pairs = new ArrayList<>();
                for (int i = 0; i < map.size(); i++) {
                    pairs.add(new String[] {
                        of(key.getElementOrNull(keys, i), mapType.getKeyType()),
                        values.isNullAt(i) ? null : of(value.getElementOrNull(values, i), mapType.getValueType())
                    });
                }
                // A MAP has no order (GenericMap is a hash map): entries by the text of their keys.
                pairs.sort(Comparator.comparing(p -> p[0]));
                for (String[] p : pairs) {
                    ArrayNode pair = out.addArray();
                    addText(pair, p[0]);
                    addText(pair, p[1]);
                }
                return out;
            }
            default: {
                RowType rowType = (RowType) type;
                InternalRow row = (InternalRow) v;
                List<DataType> fields = rowType.getChildren();
                for (int i = 0; i < fields.size(); i++) {
                    InternalRow.FieldGetter getter = InternalRow.createFieldGetter(fields.get(i), i);
                    addText(out, row.isNullAt(i) ? null : of(getter.getFieldOrNull(row), fields.get(i)));
                }
                return out;
            }
        }
    }

    private static void addText(ArrayNode out, String text) {
        if (text == null) {
            out.addNull();
        } else {
            out.add(text);
        }
    }

    /** The Fluss internal value of a nested canonical text (the inverse of {@link #nested}). */
    private static Object parseNested(String s, DataType type) {
        JsonNode json;
        try {
            json = Specs.JSON.readTree(s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return fromJson(json, type);
    }

    private static Object fromJson(JsonNode json, DataType type) {
        switch (type.getTypeRoot()) {
            case ARRAY: {
                DataType element = ((ArrayType) type).getElementType();
                Object[] values = new Object[json.size()];
                for (int i = 0; i < values.length; i++) {
                    values[i] = element(json.get(i), element);
                }
                return new GenericArray(values);
            }
            case MAP: {
                MapType mapType = (MapType) type;
                Map<Object, Object> map = new LinkedHashMap<>();
                for (JsonNode pair : json) {
                    map.put(element(pair.get(0), mapType.getKeyType()), element(pair.get(1), mapType.getValueType()));
                }
                return new GenericMap(map);
            }
            case ROW: {
                List<DataType> fields = ((RowType) type).getChildren();
                GenericRow row = new GenericRow(fields.size());
                for (int i = 0; i < fields.size(); i++) {
                    row.setField(i, element(json.get(i), fields.get(i)));
                }
                return row;
            }
            default:
                throw new IllegalArgumentException("not a nested type: " + type);
        }
    }

    /** An element, key, value or field of a nested value: its canonical text, or null. */
    private static Object element(JsonNode json, DataType type) {
        return json == null || json.isNull() ? null : parse(json.asText(), type);
    }

    private static String decimalText(BigDecimal d, int scale) {
        try {
            return d.setScale(scale).toPlainString();
        } catch (ArithmeticException e) {
            return d.toPlainString() + " (scale " + d.scale() + ", expected " + scale + ")";
        }
    }

    /** The Fluss internal value of a canonical text (the inverse of {@link #of}). */
    public static Object parse(String s, DataType type) {
        if (s == null) {
            return null;
        }
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return Boolean.parseBoolean(s);
            case TINYINT:
                return Byte.parseByte(s);
            case SMALLINT:
                return Short.parseShort(s);
            case INTEGER:
            case DATE:
            case TIME_WITHOUT_TIME_ZONE:
                return Integer.parseInt(s);
            case BIGINT:
                return Long.parseLong(s);
            case FLOAT:
                return s.equals("NaN") ? Float.NaN : Float.intBitsToFloat(Integer.parseUnsignedInt(s.substring(2), 16));
            case DOUBLE:
                return s.equals("NaN") ? Double.NaN : Double.longBitsToDouble(Long.parseUnsignedLong(s.substring(2), 16));
            case DECIMAL:
                return Decimal.fromBigDecimal(
                        new BigDecimal(s), DataTypeChecks.getPrecision(type), DataTypeChecks.getScale(type));
            case CHAR:
            case STRING:
                return BinaryString.fromString(s);
            case BINARY:
            case BYTES:
                return unhex(s);
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                long n = Long.parseLong(s);
                return TimestampNtz.fromMillis(Math.floorDiv(n, 1_000_000L), (int) Math.floorMod(n, 1_000_000L));
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                long l = Long.parseLong(s);
                return TimestampLtz.fromEpochMillis(Math.floorDiv(l, 1_000_000L), (int) Math.floorMod(l, 1_000_000L));
            case ARRAY:
            case MAP:
            case ROW:
                return parseNested(s, type);
            default:
                throw new IllegalArgumentException("unsupported type " + type);
        }
    }

    /** Reads canonical texts of all fields of rows of one type. */
    public static final class RowReader {
        private final DataType[] types;
        private final InternalRow.FieldGetter[] getters;

        public RowReader(RowType type) {
            types = type.getChildren().toArray(new DataType[0]);
            getters = new InternalRow.FieldGetter[types.length];
            for (int i = 0; i < types.length; i++) {
                getters[i] = InternalRow.createFieldGetter(types[i], i);
            }
        }

        public String[] read(InternalRow row) {
            String[] out = new String[types.length];
            for (int i = 0; i < out.length; i++) {
                out[i] = row.isNullAt(i) ? null : of(getters[i].getFieldOrNull(row), types[i]);
            }
            return out;
        }
    }

    static String hex(byte[] bytes) {
        StringBuilder out = new StringBuilder(bytes.length * 2);
        for (byte b : bytes) {
            out.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
        }
        return out.toString();
    }

    static byte[] unhex(String s) {
        byte[] out = new byte[s.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }
}
