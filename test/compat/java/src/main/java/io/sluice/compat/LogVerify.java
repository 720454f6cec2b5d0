package io.sluice.compat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.fluss.client.admin.Admin;
import org.apache.fluss.client.admin.OffsetSpec;
import org.apache.fluss.client.table.Table;
import org.apache.fluss.client.table.scanner.ScanRecord;
import org.apache.fluss.client.table.scanner.log.LogScanner;
import org.apache.fluss.client.table.scanner.log.ScanRecords;
import org.apache.fluss.metadata.TableBucket;
import org.apache.fluss.metadata.TableInfo;
import org.apache.fluss.metadata.TablePath;
import org.apache.fluss.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.fluss.types.DataType;
import org.apache.fluss.types.DataTypes;
import org.apache.fluss.types.RowType;

/**
 * Reads a log table written with the dataset from the earliest offset and checks it: every row
 * i in [start, start + n) exactly once with exactly the dataset's values, offsets dense per
 * bucket from the earliest to the latest offset; then (optionally) a projected read, matched to
 * the full read by bucket and offset.
 */
final class LogVerify {
    private static final long STALL_TIMEOUT_MS = 60_000;
    private static final int MAX_MISMATCHES = 5;

    private final Table table;
    private final TableInfo info;
    private final long start;
    private final long n;
    private final long salt;
    private final List<String> mismatches = new ArrayList<>();
    private Map<Integer, Long> earliest;
    private Map<Integer, Long> latest;
    private long[][] idsByOffset;

    LogVerify(Table table, long start, long n, long salt) {
        this.table = table;
        this.info = table.getTableInfo();
        this.start = start;
        this.n = n;
        this.salt = salt;
    }

    ObjectNode run(Admin admin, TablePath path, List<String> projection) throws Exception {
        List<Integer> buckets = new ArrayList<>();
        for (int b = 0; b < info.getNumBuckets(); b++) {
            buckets.add(b);
        }
        earliest = admin.listOffsets(path, buckets, new OffsetSpec.EarliestSpec()).all().get();
        latest = admin.listOffsets(path, buckets, new OffsetSpec.LatestSpec()).all().get();
        ObjectNode result = Specs.JSON.createObjectNode();
        ObjectNode bucketsJson = result.putObject("buckets");
        long rows = readAll(bucketsJson);
        result.put("rows", rows);
        if (rows != n && mismatches.size() < MAX_MISMATCHES) {
            mismatches.add("read " + rows + " distinct rows, expected " + n);
        }
        if (projection != null && mismatches.isEmpty()) {
            result.put("projectedRows", readProjected(projection));
        }
        result.put("ok", mismatches.isEmpty());
        mismatches.forEach(result.putArray("mismatches")::add);
        return result;
    }

    private long readAll(ObjectNode bucketsJson) throws Exception {
        int numBuckets = info.getNumBuckets();
        idsByOffset = new long[numBuckets][];
        long[] next = new long[numBuckets];
        int[] idHash = new int[numBuckets];
        boolean[] seen = new boolean[(int) n];
        long distinct = 0;
        RowType rowType = info.getRowType();
        Canonical.RowReader reader = new Canonical.RowReader(rowType);
        int idIndex = rowType.getFieldIndex("id");
        try (LogScanner scanner = table.newScan().createLogScanner()) {
            for (int b = 0; b < numBuckets; b++) {
                idsByOffset[b] = new long[(int) (latest.get(b) - earliest.get(b))];
                next[b] = earliest.get(b);
                scanner.subscribeFromBeginning(b);
            }
            long lastProgress = System.currentTimeMillis();
            while (!done(next) && mismatches.size() < MAX_MISMATCHES) {
                ScanRecords records = scanner.poll(Duration.ofSeconds(1));
                if (!records.isEmpty()) {
                    lastProgress = System.currentTimeMillis();
                } else if (System.currentTimeMillis() - lastProgress > STALL_TIMEOUT_MS) {
                    mismatches.add("no records for " + STALL_TIMEOUT_MS + " ms; positions " + positions(next));
                    break;
                }
                for (TableBucket tb : records.buckets()) {
                    int b = tb.getBucket();
                    for (ScanRecord r : records.records(tb)) {
                        if (r.logOffset() != next[b]) {
                            mismatch("bucket " + b + ": offset " + r.logOffset() + ", expected " + next[b]);
                        }
                        next[b] = r.logOffset() + 1;
                        String[] row = reader.read(r.getRow());
                        long id = Long.parseLong(row[idIndex]);
                        if (id < start || id >= start + n) {
                            mismatch("bucket " + b + " offset " + r.logOffset() + ": id " + id + " outside the written range");
                            continue;
                        }
                        if (seen[(int) (id - start)]) {
                            mismatch("bucket " + b + " offset " + r.logOffset() + ": id " + id + " read twice");
                        } else {
                            seen[(int) (id - start)] = true;
                            distinct++;
                        }
                        compare(row, rowType.getFieldNames(), id, "bucket " + b + " offset " + r.logOffset());
                        long index = r.logOffset() - earliest.get(b);
                        if (index >= 0 && index < idsByOffset[b].length) {
                            idsByOffset[b][(int) index] = id;
                        }
                        idHash[b] = idHash[b] * 31 + (int) id;
                    }
                }
            }
        }
        for (int b = 0; b < numBuckets; b++) {
            ObjectNode bucket = bucketsJson.putObject(Integer.toString(b));
            bucket.put("earliest", earliest.get(b));
            bucket.put("latest", latest.get(b));
            bucket.put("records", next[b] - earliest.get(b));
            bucket.put("idHash", Integer.toUnsignedLong(idHash[b]));
        }
        return distinct;
    }

    private long readProjected(List<String> projection) throws Exception {
        RowType rowType = info.getRowType();
        List<DataType> types = new ArrayList<>();
        for (String name : projection) {
            types.add(rowType.getTypeAt(rowType.getFieldIndex(name)));
        }
        Canonical.RowReader reader =
                new Canonical.RowReader(DataTypes.ROW(types.toArray(new DataType[0])));
        long[] next = new long[info.getNumBuckets()];
        long count = 0;
        try (LogScanner scanner = table.newScan().project(projection).createLogScanner()) {
            for (int b = 0; b < next.length; b++) {
                next[b] = earliest.get(b);
                scanner.subscribeFromBeginning(b);
            }
            long lastProgress = System.currentTimeMillis();
            while (!done(next) && mismatches.size() < MAX_MISMATCHES) {
                ScanRecords records = scanner.poll(Duration.ofSeconds(1));
                if (!records.isEmpty()) {
                    lastProgress = System.currentTimeMillis();
                } else if (System.currentTimeMillis() - lastProgress > STALL_TIMEOUT_MS) {
                    mismatches.add("projected read stalled; positions " + positions(next));
                    break;
                }
                for (TableBucket tb : records.buckets()) {
                    int b = tb.getBucket();
                    for (ScanRecord r : records.records(tb)) {
                        String where = "projected bucket " + b + " offset " + r.logOffset();
                        if (r.logOffset() != next[b]) {
                            mismatch(where + ": expected offset " + next[b]);
                        }
                        String[] row = reader.read(r.getRow());
                        if (row.length != projection.size()) {
                            mismatch(where + ": " + row.length + " columns, expected " + projection.size());
                        }
                        next[b] = r.logOffset() + 1;
                        long index = r.logOffset() - earliest.get(b);
                        if (index < 0 || index >= idsByOffset[b].length) {
                            mismatch(where + ": offset outside the full read");
                            continue;
                        }
                        compare(row, projection, idsByOffset[b][(int) index], where);
                        count++;
                    }
                }
            }
        }
        return count;
    }

    private void compare(String[] row, List<String> names, long id, String where) {
        for (int k = 0; k < names.size() && k < row.length; k++) {
            String expected = Dataset.value(id, salt, names.get(k));
            if (expected == null ? row[k] != null : !expected.equals(row[k])) {
                mismatch(where + " (id " + id + ") column " + names.get(k) + ": expected " + expected + ", got " + row[k]);
            }
        }
    }

    private void mismatch(String message) {
        if (mismatches.size() < MAX_MISMATCHES) {
            mismatches.add(message);
        }
    }

    private boolean done(long[] next) {
        for (int b = 0; b < next.length; b++) {
            if (next[b] < latest.get(b)) {
                return false;
            }
        }
        return true;
    }

    private String positions(long[] next) {
        StringBuilder out = new StringBuilder();
        for (int b = 0; b < next.length; b++) {
            out.append(b).append(':').append(next[b]).append('/').append(latest.get(b)).append(' ');
        }
        return out.toString().trim();
    }
}
