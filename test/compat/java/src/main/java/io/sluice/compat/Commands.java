package io.sluice.compat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.fluss.client.Connection;
import org.apache.fluss.client.admin.Admin;
import org.apache.fluss.client.admin.OffsetSpec;
import org.apache.fluss.client.table.Table;
import org.apache.fluss.client.table.scanner.ScanRecord;
import org.apache.fluss.client.table.scanner.log.LogScanner;
import org.apache.fluss.client.table.writer.AppendWriter;
import org.apache.fluss.metadata.DatabaseDescriptor;
import org.apache.fluss.metadata.PartitionInfo;
import org.apache.fluss.metadata.PartitionSpec;
import org.apache.fluss.metadata.TablePath;
import org.apache.fluss.row.GenericRow;
import org.apache.fluss.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.fluss.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.fluss.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.fluss.types.RowType;

/** The driver's commands on one connection (see Main for the command line). */
final class Commands {
    private final Connection connection;
    private final Admin admin;

    Commands(Connection connection) {
        this.connection = connection;
        this.admin = connection.getAdmin();
    }

    ObjectNode run(String command, List<String> args, Map<String, String> flags) throws Exception {
        ObjectNode result = Specs.JSON.createObjectNode();
        if (command.equals("create-database")) {
            admin.createDatabase(args.get(0), DatabaseDescriptor.EMPTY, false).get();
            return result;
        }
        if (command.equals("list-tables")) {
            ArrayNode tables = result.putArray("tables");
            admin.listTables(args.get(0)).get().stream().sorted().forEach(tables::add);
            return result;
        }
        TablePath path = TablePath.of(args.get(0), args.get(1));
        switch (command) {
            case "create-table":
                admin.createTable(path, Specs.tableDescriptor(Specs.read(args.get(2))), false).get();
                result.put("tableId", admin.getTableInfo(path).get().getTableId());
                return result;
            case "partitions":
                return partitions(path);
            case "offsets":
                return offsets(path, args.get(2));
            case "create-partition":
                admin.createPartition(path, new PartitionSpec(partitionSpec(args.get(2))), false).get();
                return result;
            case "alter":
                return Evolve.alter(admin, path, Specs.read(args.get(2)));
            case "evolve":
                return Evolve.evolve(connection, admin, path, Specs.read(args.get(2)));
            case "stats":
                result.put("rowCount", admin.getTableStats(path).get().getRowCount());
                return result;
            default:
                break;
        }
        try (Table table = connection.getTable(path)) {
            switch (command) {
                case "write":
                    return write(table, flag(flags, "start", 0), Long.parseLong(args.get(2)), flag(flags, "salt", 0));
                case "verify":
                    LogVerify verify =
                            new LogVerify(table, flag(flags, "start", 0), Long.parseLong(args.get(2)), flag(flags, "salt", 0));
                    return verify.run(admin, path, Main.columnList(flags.get("project")));
                case "append":
                    return append(table, Specs.read(args.get(2)));
                case "upsert":
                    return KvCommands.upsert(table, Specs.read(args.get(2)));
                case "lookup":
                    return KvCommands.lookup(
                            table,
                            Specs.read(args.get(2)),
                            Main.columnList(flags.get("by")),
                            Boolean.parseBoolean(flags.getOrDefault("insert", "false")));
                case "scan-from":
                    return scanFrom(table, path, Integer.parseInt(args.get(2)), Long.parseLong(args.get(3)));
                case "changelog":
                    Changelog changelog = new Changelog(admin, table, Main.columnList(flags.get("project")));
                    return changelog.read(Long.parseLong(args.get(2)), flag(flags, "timeout-ms", 30_000));
                default:
                    throw new IllegalArgumentException("unknown command " + command);
            }
        }
    }

    private static long flag(Map<String, String> flags, String name, long fallback) {
        return flags.containsKey(name) ? Long.parseLong(flags.get(name)) : fallback;
    }

    /** Appends dataset rows [start, start + n) of version salt. */
    private static ObjectNode write(Table table, long start, long n, long salt) {
        RowType rowType = table.getTableInfo().getRowType();
        List<String> names = rowType.getFieldNames();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long began = System.currentTimeMillis();
        AppendWriter writer = table.newAppend().createWriter();
        for (long i = start; i < start + n; i++) {
            GenericRow row = new GenericRow(names.size());
            for (int k = 0; k < names.size(); k++) {
                row.setField(k, Canonical.parse(Dataset.value(i, salt, names.get(k)), rowType.getTypeAt(k)));
            }
            writer.append(row).whenComplete((r, e) -> {
                if (e != null) {
                    failure.compareAndSet(null, e);
                }
            });
        }
        writer.flush();
        return written(failure, n, began);
    }

    /** Appends explicit rows (canonical texts in table column order). */
    private static ObjectNode append(Table table, JsonNode rows) {
        RowType rowType = table.getTableInfo().getRowType();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long began = System.currentTimeMillis();
        AppendWriter writer = table.newAppend().createWriter();
        for (JsonNode json : rows) {
            writer.append(row(rowType, Specs.canonicalRow(json))).whenComplete((r, e) -> {
                if (e != null) {
                    failure.compareAndSet(null, e);
                }
            });
        }
        writer.flush();
        return written(failure, rows.size(), began);
    }

    static ObjectNode written(AtomicReference<Throwable> failure, long n, long began) {
        if (failure.get() != null) {
            throw new IllegalStateException("a write failed: " + Main.describe(failure.get()), failure.get());
        }
        ObjectNode result = Specs.JSON.createObjectNode();
        result.put("rows", n);
        result.put("elapsedMs", System.currentTimeMillis() - began);
        return result;
    }

    /** A GenericRow of the given type from canonical texts. */
    static GenericRow row(RowType rowType, String[] values) {
        if (values.length != rowType.getFieldCount()) {
            throw new IllegalArgumentException(values.length + " values for " + rowType.getFieldCount() + " columns");
        }
        GenericRow row = new GenericRow(values.length);
        for (int k = 0; k < values.length; k++) {
            row.setField(k, Canonical.parse(values[k], rowType.getTypeAt(k)));
        }
        return row;
    }

    /** Reads one bucket from an offset up to its latest offset (at most 30 s). */
    private ObjectNode scanFrom(Table table, TablePath path, int bucket, long offset) throws Exception {
        long latest =
                admin.listOffsets(path, Collections.singletonList(bucket), new OffsetSpec.LatestSpec())
                        .bucketResult(bucket)
                        .get();
        long first = -1;
        long next = offset;
        long count = 0;
        long deadline = System.currentTimeMillis() + 30_000;
        try (LogScanner scanner = table.newScan().createLogScanner()) {
            scanner.subscribe(bucket, offset);
            // Polls at least once, so that a start beyond the end meets the server's answer.
            do {
                for (ScanRecord r : scanner.poll(Duration.ofMillis(1000))) {
                    first = first < 0 ? r.logOffset() : first;
                    next = r.logOffset() + 1;
                    count++;
                }
            } while (next < latest && System.currentTimeMillis() < deadline);
        }
        ObjectNode result = Specs.JSON.createObjectNode();
        result.put("records", count).put("firstOffset", first).put("nextOffset", next).put("latest", latest);
        return result;
    }

    /** Offsets of every bucket: `earliest`, `latest`, or the first offset at/after a timestamp (ms). */
    private ObjectNode offsets(TablePath path, String spec) throws Exception {
        int numBuckets = admin.getTableInfo(path).get().getNumBuckets();
        List<Integer> buckets = new ArrayList<>();
        for (int b = 0; b < numBuckets; b++) {
            buckets.add(b);
        }
        OffsetSpec offsetSpec =
                spec.equals("earliest")
                        ? new OffsetSpec.EarliestSpec()
                        : spec.equals("latest") ? new OffsetSpec.LatestSpec() : new OffsetSpec.TimestampSpec(Long.parseLong(spec));
        Map<Integer, Long> offsets = admin.listOffsets(path, buckets, offsetSpec).all().get();
        ObjectNode result = Specs.JSON.createObjectNode();
        ObjectNode out = result.putObject("offsets");
        offsets.forEach((b, o) -> out.put(Integer.toString(b), o));
        return result;
    }

    /** `k=v,k2=v2` as a map in the given order. */
    private static Map<String, String> partitionSpec(String text) {
        Map<String, String> spec = new LinkedHashMap<>();
        for (String pair : text.split(",")) {
            int eq = pair.indexOf('=');
            spec.put(pair.substring(0, eq), pair.substring(eq + 1));
        }
        return spec;
    }

    private ObjectNode partitions(TablePath path) throws Exception {
        List<PartitionInfo> infos = new ArrayList<>(admin.listPartitionInfos(path).get());
        infos.sort(Comparator.comparing(PartitionInfo::getPartitionName));
        ObjectNode result = Specs.JSON.createObjectNode();
        ArrayNode list = result.putArray("partitions");
        for (PartitionInfo p : infos) {
            list.addObject().put("id", p.getPartitionId()).put("name", p.getPartitionName());
        }
        return result;
    }
}
