package io.sluice.compat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.fluss.client.admin.Admin;
import org.apache.fluss.client.table.Table;
import org.apache.fluss.client.table.scanner.Scan;
import org.apache.fluss.client.table.scanner.ScanRecord;
import org.apache.fluss.client.table.scanner.log.LogScanner;
import org.apache.fluss.client.table.scanner.log.ScanRecords;
import org.apache.fluss.metadata.PartitionInfo;
import org.apache.fluss.metadata.TableBucket;
import org.apache.fluss.metadata.TableInfo;
import org.apache.fluss.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.fluss.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.fluss.types.DataType;
import org.apache.fluss.types.DataTypes;
import org.apache.fluss.types.RowType;

/**
 * Reads the whole log of a table (a log table's rows, or a primary-key table's changelog) from
 * the earliest offset of every bucket (of every partition), until the expected number of records
 * arrived and a further poll brings no more (or a timeout passes), and lists them.
 */
final class Changelog {
    private static final Duration SETTLE = Duration.ofMillis(1000);

    private final Admin admin;
    private final Table table;
    private final List<String> projection;

    Changelog(Admin admin, Table table, List<String> projection) {
        this.admin = admin;
        this.table = table;
        this.projection = projection;
    }

    ObjectNode read(long expected, long timeoutMs) throws Exception {
        TableInfo info = table.getTableInfo();
        Map<Long, String> partitionNames = new HashMap<>();
        Scan scan = table.newScan();
        if (projection != null) {
            scan = scan.project(projection);
        }
        ObjectNode result = Specs.JSON.createObjectNode();
        ArrayNode records = result.putArray("records");
        Canonical.RowReader reader = new Canonical.RowReader(readType(info.getRowType()));
        try (LogScanner scanner = scan.createLogScanner()) {
            if (info.isPartitioned()) {
                for (PartitionInfo p : admin.listPartitionInfos(info.getTablePath()).get()) {
                    partitionNames.put(p.getPartitionId(), p.getPartitionName());
                    for (int b = 0; b < info.getNumBuckets(); b++) {
                        scanner.subscribeFromBeginning(p.getPartitionId(), b);
                    }
                }
            } else {
                for (int b = 0; b < info.getNumBuckets(); b++) {
                    scanner.subscribeFromBeginning(b);
                }
            }
            long deadline = System.currentTimeMillis() + timeoutMs;
            while (System.currentTimeMillis() < deadline) {
                boolean complete = records.size() >= expected;
                ScanRecords polled = scanner.poll(complete ? SETTLE : Duration.ofMillis(200));
                if (polled.isEmpty() && complete) {
                    break;
                }
                for (TableBucket tb : polled.buckets()) {
                    for (ScanRecord r : polled.records(tb)) {
                        ObjectNode record = records.addObject();
                        record.put("bucket", tb.getBucket());
                        Long pid = tb.getPartitionId();
                        if (pid == null) {
                            record.putNull("partition");
                        } else {
                            record.put("partition", partitionNames.get(pid));
                        }
                        record.put("offset", r.logOffset());
                        record.put("change", r.getChangeType().shortString());
                        record.set("row", Specs.toJson(reader.read(r.getRow())));
                    }
                }
            }
        }
        return result;
    }

    private RowType readType(RowType rowType) {
        if (projection == null) {
            return rowType;
        }
        List<DataType> types = new ArrayList<>();
        for (String name : projection) {
            types.add(rowType.getTypeAt(rowType.getFieldIndex(name)));
        }
        return DataTypes.ROW(types.toArray(new DataType[0]));
    }
}
