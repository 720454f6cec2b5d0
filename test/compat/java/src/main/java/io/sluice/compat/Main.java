package io.sluice.compat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.fluss.client.Connection;
import org.apache.fluss.client.ConnectionFactory;
import org.apache.fluss.config.Configuration;
import org.apache.fluss.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.fluss.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Drives a Fluss-protocol cluster with the official Java client for the compatibility suite.
 *
 * <pre>
 * Main sample &lt;i,j,...&gt; [--salt k]
 * Main &lt;bootstrap&gt; create-database &lt;db&gt;
 * Main &lt;bootstrap&gt; list-tables &lt;db&gt;
 * Main &lt;bootstrap&gt; create-table &lt;db&gt; &lt;table&gt; &lt;spec.json&gt;
 * Main &lt;bootstrap&gt; write &lt;db&gt; &lt;table&gt; &lt;n&gt; [--start s] [--salt k]
 * Main &lt;bootstrap&gt; verify &lt;db&gt; &lt;table&gt; &lt;n&gt; [--start s] [--salt k] [--project a,b]
 * Main &lt;bootstrap&gt; append &lt;db&gt; &lt;table&gt; &lt;rows.json&gt;
 * Main &lt;bootstrap&gt; upsert &lt;db&gt; &lt;table&gt; &lt;ops.json&gt;
 * Main &lt;bootstrap&gt; lookup &lt;db&gt; &lt;table&gt; &lt;keys.json&gt; [--by a,b] [--insert true]
 * Main &lt;bootstrap&gt; scan-from &lt;db&gt; &lt;table&gt; &lt;bucket&gt; &lt;offset&gt;
 * Main &lt;bootstrap&gt; changelog &lt;db&gt; &lt;table&gt; &lt;count&gt; [--project a,b] [--timeout-ms t]
 * Main &lt;bootstrap&gt; partitions &lt;db&gt; &lt;table&gt;
 * Main &lt;bootstrap&gt; offsets &lt;db&gt; &lt;table&gt; earliest|latest|&lt;timestamp ms&gt;
 * Main &lt;bootstrap&gt; create-partition &lt;db&gt; &lt;table&gt; &lt;key=value,...&gt;
 * Main &lt;bootstrap&gt; stats &lt;db&gt; &lt;table&gt;
 * Main &lt;bootstrap&gt; alter &lt;db&gt; &lt;table&gt; &lt;changes.json&gt;
 * Main &lt;bootstrap&gt; evolve &lt;db&gt; &lt;table&gt; &lt;scenario.json&gt;
 * </pre>
 *
 * Prints one JSON line: {"ok": true, ...} or {"ok": false, "mismatches"|"error": ...}. Exit code 0
 * when ok, 1 on a mismatch, 2 on an error.
 */
public final class Main {
    private Main() {}

    public static void main(String[] argv) {
        List<String> positional = new ArrayList<>();
        Map<String, String> flags = new HashMap<>();
        for (int i = 0; i < argv.length; i++) {
            if (argv[i].startsWith("--") && i + 1 < argv.length) {
                flags.put(argv[i].substring(2), argv[++i]);
            } else {
                positional.add(argv[i]);
            }
        }
        ObjectNode result;
        int code;
        try {
            result = run(positional, flags);
            code = result.path("ok").asBoolean(true) ? 0 : 1;
            result.put("ok", code == 0);
        } catch (Throwable e) {
            result = Specs.JSON.createObjectNode();
            result.put("ok", false);
            result.put("error", describe(e));
            StringWriter trace = new StringWriter();
            e.printStackTrace(new PrintWriter(trace));
            System.err.println(trace);
            code = 2;
        }
        System.out.println(result.toString());
        System.out.flush();
        System.exit(code);
    }

    private static ObjectNode run(List<String> args, Map<String, String> flags) throws Exception {
        if (args.size() >= 2 && args.get(0).equals("sample")) {
            return sample(args.get(1), Long.parseLong(flags.getOrDefault("salt", "0")));
        }
        if (args.size() < 3) {
            throw new IllegalArgumentException("usage: Main <bootstrap> <command> <db> ... (got " + args + ")");
        }
        Configuration conf = new Configuration();
        conf.setString("bootstrap.servers", args.get(0));
        conf.setString("client.writer.dynamic-create-partition.enabled", "true");
        // SLUICE_COMPAT_CLIENT_CONF: extra client options as a JSON object (e.g. SASL credentials).
        String extra = System.getenv("SLUICE_COMPAT_CLIENT_CONF");
        if (extra != null && !extra.isEmpty()) {
            Specs.JSON.readTree(extra).fields().forEachRemaining(e -> conf.setString(e.getKey(), e.getValue().asText()));
        }
        // Not closed: closing waits out Netty's 2 s quiet period, and the process exits right after
        // printing the result (writers are flushed and scanners closed by the commands).
        Connection connection = ConnectionFactory.createConnection(conf);
        return new Commands(connection).run(args.get(1), args.subList(2, args.size()), flags);
    }

    private static ObjectNode sample(String indexes, long salt) {
        ObjectNode result = Specs.JSON.createObjectNode();
        ArrayNode rows = result.putArray("rows");
        for (String index : indexes.split(",")) {
            long i = Long.parseLong(index);
            String[] row = new String[Dataset.COLUMNS.size()];
            for (int k = 0; k < row.length; k++) {
                row[k] = Dataset.value(i, salt, Dataset.COLUMNS.get(k));
            }
            rows.add(Specs.toJson(row));
        }
        return result;
    }

    static List<String> columnList(String value) {
        return value == null ? null : Arrays.asList(value.split(","));
    }

    /** The exception chain as one line: class and message of each cause. */
    static String describe(Throwable e) {
        StringBuilder out = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (out.length() > 0) {
                out.append(" <- ");
            }
            out.append(t.getClass().getName()).append(": ").append(t.getMessage());
        }
        return out.toString();
    }
}
