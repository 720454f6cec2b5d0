package io.sluice.compat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.apache.fluss.client.Connection;
import org.apache.fluss.client.admin.Admin;
import org.apache.fluss.client.lookup.LookupResult;
import org.apache.fluss.client.lookup.Lookuper;
import org.apache.fluss.client.table.Table;
import org.apache.fluss.client.table.scanner.ScanRecord;
import org.apache.fluss.client.table.scanner.log.LogScanner;
import org.apache.fluss.client.table.writer.AppendWriter;
import org.apache.fluss.client.table.writer.UpsertWriter;
import org.apache.fluss.metadata.TableChange;
import org.apache.fluss.metadata.TablePath;
import org.apache.fluss.row.GenericRow;
import org.apache.fluss.row.InternalRow;
import org.apache.fluss.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.fluss.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.fluss.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.fluss.types.DataType;
import org.apache.fluss.types.DataTypes;
import org.apache.fluss.types.RowType;

/**
 * Schema evolution through the Java client: `alter` sends table changes with Admin#alterTable;
 * `evolve` opens a table (its writer and reader keep the schema they were opened with), writes
 * `before` rows, alters the table, writes `old` rows with the writer opened before the change and
 * `new` rows with a table opened after it, then reads everything with both tables: a log scan of
 * `count` records (log tables) or lookups of `keys` (primary-key tables).
 *
 * Changes: {"op": "add", "name", "type", "comment"?} | {"op": "drop", "name"} | {"op": "rename",
 * "name", "newName"} | {"op": "modify", "name", "type", "comment"?} | {"op": "set", "key", "value"}
 * | {"op": "reset", "key"}. Rows are canonical texts in the column order of the writer's schema.
 */
final class Evolve {
    private Evolve() {}

    static List<TableChange> changes(JsonNode json) {
        List<TableChange> out = new ArrayList<>();
        for (JsonNode c : json) {
            String comment = c.has("comment") ? c.get("comment").asText() : null;
            switch (c.get("op").asText()) {
                case "add":
                    out.add(TableChange.addColumn(
                            c.get("name").asText(), type(c), comment, TableChange.ColumnPosition.last()));
                    break;
                case "drop":
                    out.add(TableChange.dropColumn(c.get("name").asText()));
                    break;
                case "rename":
                    out.add(TableChange.renameColumn(c.get("name").asText(), c.get("newName").asText()));
                    break;
                case "modify":
                    out.add(TableChange.modifyColumn(c.get("name").asText(), type(c), comment, null));
                    break;
                case "set":
                    out.add(TableChange.set(c.get("key").asText(), c.get("value").asText()));
                    break;
                case "reset":
                    out.add(TableChange.reset(c.get("key").asText()));
                    break;
                default:
                    throw new IllegalArgumentException("unknown change " + c);
            }
        }
        return out;
    }

    private static DataType type(JsonNode change) {
        DataType type = DataTypes.parse(change.get("type").asText());
        return change.has("nullable") && !change.get("nullable").asBoolean() ? type.copy(false) : type;
    }

    static ObjectNode alter(Admin admin, TablePath path, JsonNode changes) throws Exception {
        admin.alterTable(path, changes(changes), false).get();
        ObjectNode result = Specs.JSON.createObjectNode();
        result.put("schemaId", admin.getTableInfo(path).get().getSchemaId());
        return result;
    }

    static ObjectNode evolve(Connection connection, Admin admin, TablePath path, JsonNode scenario) throws Exception {
        ObjectNode result = Specs.JSON.createObjectNode();
        try (Table before = connection.getTable(path)) {
            boolean pk = before.getTableInfo().hasPrimaryKey();
            Writer oldWriter = new Writer(before, pk);
            oldWriter.write(scenario.get("before"));
            admin.alterTable(path, changes(scenario.get("changes")), false).get();
            oldWriter.write(scenario.get("old"));
            try (Table after = connection.getTable(path)) {
                new Writer(after, pk).write(scenario.get("new"));
                result.put("oldSchemaId", before.getTableInfo().getSchemaId());
                result.put("newSchemaId", after.getTableInfo().getSchemaId());
                result.set("oldColumns", Specs.JSON.valueToTree(before.getTableInfo().getRowType().getFieldNames()));
                result.set("newColumns", Specs.JSON.valueToTree(after.getTableInfo().getRowType().getFieldNames()));
                if (pk) {
                    result.set("oldRead", lookup(before, scenario.get("keys")));
                    result.set("newRead", lookup(after, scenario.get("keys")));
                } else {
                    int count = scenario.get("count").asInt();
                    result.set("oldRead", scan(before, count));
                    result.set("newRead", scan(after, count));
                }
            }
        }
        return result;
    }

    /** Appends or upserts rows of the schema its table was opened with. */
    private static final class Writer {
        private final RowType rowType;
        private final AppendWriter append;
        private final UpsertWriter upsert;

        Writer(Table table, boolean pk) {
            rowType = table.getTableInfo().getRowType();
            append = pk ? null : table.newAppend().createWriter();
            upsert = pk ? table.newUpsert().createWriter() : null;
        }

        void write(JsonNode rows) throws Exception {
            List<CompletableFuture<?>> pending = new ArrayList<>();
            for (JsonNode json : rows) {
                GenericRow row = Commands.row(rowType, Specs.canonicalRow(json));
                pending.add(append != null ? append.append(row) : upsert.upsert(row));
            }
            if (append != null) {
                append.flush();
            } else {
                upsert.flush();
            }
            for (CompletableFuture<?> f : pending) {
                f.get();
            }
        }
    }

    /** `count` records from the earliest offset of every bucket, sorted by their canonical text. */
    private static ArrayNode scan(Table table, int count) throws Exception {
        RowType rowType = table.getTableInfo().getRowType();
        Canonical.RowReader reader = new Canonical.RowReader(rowType);
        List<String[]> rows = new ArrayList<>();
        long deadline = System.currentTimeMillis() + 30_000;
        try (LogScanner scanner = table.newScan().createLogScanner()) {
            for (int b = 0; b < table.getTableInfo().getNumBuckets(); b++) {
                scanner.subscribeFromBeginning(b);
            }
            while (rows.size() < count && System.currentTimeMillis() < deadline) {
                for (ScanRecord r : scanner.poll(Duration.ofMillis(500))) {
                    rows.add(reader.read(r.getRow()));
                }
            }
        }
        rows.sort((a, b) -> String.join("\u0000", nonNull(a)).compareTo(String.join("\u0000", nonNull(b))));
        ArrayNode out = Specs.JSON.createArrayNode();
        rows.forEach(r -> out.add(Specs.toJson(r)));
        return out;
    }

    private static String[] nonNull(String[] row) {
        String[] out = new String[row.length];
        for (int i = 0; i < row.length; i++) {
            out[i] = row[i] == null ? "" : row[i];
        }
        return out;
    }

    /** The row of each key (canonical texts of the primary-key columns), or null. */
    private static ArrayNode lookup(Table table, JsonNode keys) throws Exception {
        RowType rowType = table.getTableInfo().getRowType();
        List<String> keyNames = table.getTableInfo().getPrimaryKeys();
        Lookuper lookuper = table.newLookup().createLookuper();
        Canonical.RowReader reader = new Canonical.RowReader(rowType);
        ArrayNode out = Specs.JSON.createArrayNode();
        for (JsonNode key : keys) {
            String[] values = Specs.canonicalRow(key);
            GenericRow keyRow = new GenericRow(values.length);
            for (int k = 0; k < values.length; k++) {
                keyRow.setField(k, Canonical.parse(values[k], rowType.getTypeAt(rowType.getFieldIndex(keyNames.get(k)))));
            }
            LookupResult found = lookuper.lookup(keyRow).get();
            InternalRow row = found.getSingletonRow();
            if (row == null) {
                out.addNull();
            } else {
                out.add(Specs.toJson(reader.read(row)));
            }
        }
        return out;
    }
}
