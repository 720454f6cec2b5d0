package io.sluice.compat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.apache.fluss.client.lookup.Lookup;
import org.apache.fluss.client.lookup.LookupResult;
import org.apache.fluss.client.lookup.Lookuper;
import org.apache.fluss.client.table.Table;
import org.apache.fluss.client.table.writer.DeleteResult;
import org.apache.fluss.client.table.writer.Upsert;
import org.apache.fluss.client.table.writer.UpsertResult;
import org.apache.fluss.client.table.writer.UpsertWriter;
import org.apache.fluss.row.GenericRow;
import org.apache.fluss.row.InternalRow;
import org.apache.fluss.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.fluss.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.fluss.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.fluss.types.DataType;
import org.apache.fluss.types.RowType;

/** Primary-key table commands: upserts, deletes and partial updates from a list of operations; lookups. */
final class KvCommands {
    private KvCommands() {}

    /**
     * Runs operations in order: {"op": "upsert" | "delete", "row": [...all columns...], "columns":
     * [...target columns of a partial update...]}, or {"op": "flush"}. Consecutive operations with
     * the same target columns share a writer; switching writers flushes the previous one first.
     * The result lists, for every upsert and delete in order, the log end offset the server
     * acknowledged its batch with (records sent in one PutKv share it).
     */
    static ObjectNode upsert(Table table, JsonNode ops) throws Exception {
        RowType rowType = table.getTableInfo().getRowType();
        List<CompletableFuture<Long>> pending = new ArrayList<>();
        UpsertWriter writer = null;
        String writerColumns = null;
        long began = System.currentTimeMillis();
        for (JsonNode op : ops) {
            String kind = op.get("op").asText();
            if (kind.equals("flush")) {
                if (writer != null) {
                    writer.flush();
                }
                continue;
            }
            String columns = op.has("columns") ? op.get("columns").toString() : "";
            if (writer == null || !columns.equals(writerColumns)) {
                if (writer != null) {
                    writer.flush();
                }
                Upsert upsert = table.newUpsert();
                if (op.has("columns")) {
                    upsert = upsert.partialUpdate(Specs.strings(op.get("columns")).toArray(new String[0]));
                }
                writer = upsert.createWriter();
                writerColumns = columns;
            }
            GenericRow row = Commands.row(rowType, Specs.canonicalRow(op.get("row")));
            pending.add(
                    kind.equals("delete")
                            ? writer.delete(row).thenApply(DeleteResult::getLogEndOffset)
                            : writer.upsert(row).thenApply(UpsertResult::getLogEndOffset));
        }
        if (writer != null) {
            writer.flush();
        }
        ObjectNode result = Specs.JSON.createObjectNode();
        ArrayNode logEndOffsets = result.putArray("logEndOffsets");
        for (CompletableFuture<Long> f : pending) {
            logEndOffsets.add(f.get());
        }
        result.put("ops", pending.size());
        result.put("elapsedMs", System.currentTimeMillis() - began);
        return result;
    }

    /**
     * Looks up each key (canonical texts of the primary-key columns, or of the `by` columns for a
     * prefix lookup). Results: a row or null per key; for a prefix lookup, a list of rows per key.
     * With `insert`, missing keys are inserted (insert-if-not-exists) and their new rows returned.
     */
    static ObjectNode lookup(Table table, JsonNode keys, List<String> by, boolean insert) throws Exception {
        RowType rowType = table.getTableInfo().getRowType();
        List<String> keyNames = by != null ? by : table.getTableInfo().getPrimaryKeys();
        DataType[] keyTypes = new DataType[keyNames.size()];
        for (int k = 0; k < keyTypes.length; k++) {
            keyTypes[k] = rowType.getTypeAt(rowType.getFieldIndex(keyNames.get(k)));
        }
        Lookup lookup = insert ? table.newLookup().enableInsertIfNotExists() : table.newLookup();
        Lookuper lookuper = (by != null ? lookup.lookupBy(by) : lookup).createLookuper();
        Canonical.RowReader reader = new Canonical.RowReader(rowType);
        ObjectNode result = Specs.JSON.createObjectNode();
        ArrayNode results = result.putArray("results");
        // Every lookup is sent before the first answer is awaited: the client batches them.
        List<CompletableFuture<LookupResult>> pending = new ArrayList<>();
        for (JsonNode key : keys) {
            String[] values = Specs.canonicalRow(key);
            GenericRow keyRow = new GenericRow(values.length);
            for (int k = 0; k < values.length; k++) {
                keyRow.setField(k, Canonical.parse(values[k], keyTypes[k]));
            }
            pending.add(lookuper.lookup(keyRow));
        }
        for (CompletableFuture<LookupResult> answer : pending) {
            LookupResult found = answer.get();
            if (by != null) {
                ArrayNode rows = results.addArray();
                for (InternalRow row : found.getRowList()) {
                    rows.add(Specs.toJson(reader.read(row)));
                }
            } else {
                InternalRow row = found.getSingletonRow();
                if (row == null) {
                    results.addNull();
                } else {
                    results.add(Specs.toJson(reader.read(row)));
                }
            }
        }
        return result;
    }
}
