package io.sluice.compat;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import org.apache.fluss.metadata.AggFunctionType;
import org.apache.fluss.metadata.AggFunctions;
import org.apache.fluss.metadata.Schema;
import org.apache.fluss.metadata.TableDescriptor;
import org.apache.fluss.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.fluss.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.fluss.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.fluss.types.DataType;
import org.apache.fluss.types.DataTypes;

/** Reads the JSON files the suite hands to the driver: table specs, rows, operations. */
final class Specs {
    static final ObjectMapper JSON = new ObjectMapper();

    private Specs() {}

    static JsonNode read(String path) throws IOException {
        return JSON.readTree(new File(path));
    }

    /** A TableSpec (see test/compat/canonical.ts) as a Fluss TableDescriptor. */
    static TableDescriptor tableDescriptor(JsonNode spec) {
        Schema.Builder schema = Schema.newBuilder();
        for (JsonNode column : spec.get("columns")) {
            DataType type = DataTypes.parse(column.get("type").asText());
            if (column.has("nullable") && !column.get("nullable").asBoolean()) {
                type = type.copy(false);
            }
            String name = column.get("name").asText();
            if (column.has("agg")) {
                AggFunctionType agg = AggFunctionType.fromString(column.get("agg").asText());
                schema.column(name, type, AggFunctions.of(agg));
            } else {
                schema.column(name, type);
            }
        }
        if (spec.has("primaryKey")) {
            schema.primaryKey(strings(spec.get("primaryKey")));
        }
        if (spec.has("autoIncrement")) {
            schema.enableAutoIncrement(spec.get("autoIncrement").asText());
        }
        TableDescriptor.Builder table = TableDescriptor.builder().schema(schema.build());
        if (spec.has("partitionKeys")) {
            table.partitionedBy(strings(spec.get("partitionKeys")));
        }
        List<String> bucketKeys = spec.has("bucketKeys") ? strings(spec.get("bucketKeys")) : new ArrayList<>();
        table.distributedBy(spec.get("buckets").asInt(), bucketKeys);
        if (spec.has("properties")) {
            spec.get("properties").fields().forEachRemaining(e -> table.property(e.getKey(), e.getValue().asText()));
        }
        return table.build();
    }

    static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    /** A JSON array of canonical texts (null elements stay null). */
    static String[] canonicalRow(JsonNode array) {
        String[] out = new String[array.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = array.get(i).isNull() ? null : array.get(i).asText();
        }
        return out;
    }

    static ArrayNode toJson(String[] row) {
        ArrayNode out = JSON.createArrayNode();
        for (String v : row) {
            if (v == null) {
                out.addNull();
            } else {
                out.add(v);
            }
        }
        return out;
    }
}
