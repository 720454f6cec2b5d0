import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.roaringbitmap.longlong.Roaring64Bitmap;

/**
 * Golden vectors for the rbm64 aggregation, printed as JSON: Roaring64Bitmap bytes as Fluss 0.9.1
 * writes them (runOptimize, then serialize(DataOutput)), and the result of its aggregation
 * (deserialize(ByteBuffer) of both sides, or, runOptimize, serialize) for pairs of them.
 *
 * <pre>
 * mvn -q dependency:get -Dartifact=org.roaringbitmap:RoaringBitmap:1.3.0
 * java -cp ~/.m2/repository/org/roaringbitmap/RoaringBitmap/1.3.0/RoaringBitmap-1.3.0.jar \
 *   test/compat/java/rbm64-golden/Rbm64Golden.java \
 *   > services/tablet/src/kv/rowmerger/aggregate/test-fixtures/rbm64-golden.json
 * npx biome format --write services/tablet/src/kv/rowmerger/aggregate/test-fixtures/rbm64-golden.json
 * </pre>
 *
 * A bitmap spec lists its values in insertion order: comma-separated terms `v` or `from..to/step`
 * (to exclusive, step may be negative), signed decimal or 0x hex longs. Bytes up to 1024 long are
 * printed in full, longer ones as their length and SHA-256.
 */
public class Rbm64Golden {
  static final int MAX_HEX_BYTES = 1024;
  static final Map<String, byte[]> bitmaps = new LinkedHashMap<>();
  static final List<String> entries = new ArrayList<>();

  static long parseLong(String s) {
    s = s.trim();
    if (s.startsWith("0x")) return Long.parseUnsignedLong(s.substring(2), 16);
    if (s.startsWith("-0x")) return -Long.parseUnsignedLong(s.substring(3), 16);
    return Long.parseLong(s);
  }

  static Roaring64Bitmap of(String spec) {
    Roaring64Bitmap b = new Roaring64Bitmap();
    if (spec.isEmpty()) return b;
    for (String term : spec.split(",")) {
      if (!term.contains("..")) {
        b.addLong(parseLong(term));
        continue;
      }
      String[] fromRest = term.split("\\.\\.");
      String[] toStep = fromRest[1].split("/");
      long from = parseLong(fromRest[0]);
      long to = parseLong(toStep[0]);
      long step = toStep.length > 1 ? parseLong(toStep[1]) : 1;
      for (long v = from; step > 0 ? v < to : v > to; v += step) b.addLong(v);
    }
    return b;
  }

  static byte[] serialize(Roaring64Bitmap b) throws IOException {
    b.runOptimize();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (DataOutputStream data = new DataOutputStream(out)) {
      b.serialize(data);
    }
    return out.toByteArray();
  }

  static byte[] agg(byte[] acc, byte[] input) throws IOException {
    Roaring64Bitmap a = new Roaring64Bitmap();
    Roaring64Bitmap b = new Roaring64Bitmap();
    a.deserialize(ByteBuffer.wrap(acc));
    b.deserialize(ByteBuffer.wrap(input));
    a.or(b);
    return serialize(a);
  }

  static String bytesJson(byte[] bytes) throws NoSuchAlgorithmException {
    String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    String hex = bytes.length <= MAX_HEX_BYTES ? ", \"hex\": \"" + HexFormat.of().formatHex(bytes) + "\"" : "";
    return "\"size\": " + bytes.length + ", \"sha256\": \"" + sha + "\"" + hex;
  }

  static void bitmap(String name, String spec) throws Exception {
    put(name, spec, serialize(of(spec)));
  }

  static void put(String name, String spec, byte[] bytes) throws Exception {
    bitmaps.put(name, bytes);
    String specJson = spec == null ? "null" : "\"" + spec + "\"";
    entries.add("{\"kind\": \"bitmap\", \"name\": \"" + name + "\", \"spec\": " + specJson + ", " + bytesJson(bytes) + "}");
  }

  static void agg(String acc, String input) throws Exception {
    byte[] out = agg(bitmaps.get(acc), bitmaps.get(input));
    entries.add("{\"kind\": \"agg\", \"acc\": \"" + acc + "\", \"input\": \"" + input + "\", " + bytesJson(out) + "}");
  }

  public static void main(String[] args) throws Exception {
    bitmap("empty", "");
    bitmap("of_10_20", "10,20");
    bitmap("of_20_30", "20,30");
    bitmap("high", "0x100000000,0x100000001,0x50000000000,7");
    bitmap("signed", "-1,-9223372036854775808,9223372036854775807,0,-65536");
    bitmap("descending_keys", "0x50000,0x30000,0x10000");
    bitmap("keys_2_4", "0x20000,0x40000");
    bitmap("run_0_10000", "0..10000");
    bitmap("bitmap_evens", "0..20000/2");
    bitmap("low_half", "0..32768");
    bitmap("high_half", "32768..65536");
    bitmap("array_3000_a", "0..9000/3");
    bitmap("array_3000_b", "1..9000/3");
    bitmap("array_small_a", "100..200/7");
    bitmap("array_small_b", "101..300/7");
    bitmap("odd_few", "1,3,5,30001");
    bitmap("run_0_10", "0..10");
    bitmap("run_10_20", "10..20");
    bitmap("isolated_7", "20..34/2");
    bitmap("isolated_8", "20..36/2");
    bitmap("isolated_9", "20..38/2");
    bitmap("array_1_2_3", "1,2,3");
    bitmap("node4_full", "0..0x40000/0x10000");
    bitmap("key_4", "0x40000");
    bitmap("node16_full", "0..0x100000/0x10000");
    bitmap("keys_16_18", "0x100000..0x120000/0x10000");
    bitmap("node48_full", "0..0x300000/0x10000");
    bitmap("keys_100_103", "0x640000..0x670000/0x10000");
    bitmap("keys_0_300", "0..0x12c0000/0x10000");
    bitmap("keys_60_reversed", "0x3b0000..-1/-0x10000");
    bitmap("prefixed", "0x0102030405060000,0x0102030405070000");
    bitmap("prefix_split_a", "0x0102030905060000,0x0102030405080000,5");
    bitmap("prefix_split_b", "0x0102030405060001,0x7102030405060000");
    bitmap("keys_30_36", "0x1e0000..0x240000/0x10000");
    bitmap("seven_and_high", "7,0x4000000000000");
    bitmap("keys_0_5", "0..0x50000/0x10000");
    bitmap("keys_5_12", "0x50000..0xc0000/0x10000");

    Roaring64Bitmap removed = of("0..0x140000/0x10000,0x10000000000,0x10000010000");
    for (long k = 0; k < 18; k++) removed.removeLong(k << 16);
    removed.removeLong(1L << 40);
    put("after_removals", null, serialize(removed));

    agg("of_10_20", "of_20_30");
    agg("empty", "empty");
    agg("empty", "of_10_20");
    agg("of_10_20", "empty");
    agg("high", "signed");
    agg("signed", "high");
    agg("descending_keys", "keys_2_4");
    agg("bitmap_evens", "run_0_10000");
    agg("run_0_10000", "bitmap_evens");
    agg("low_half", "high_half");
    agg("array_3000_a", "array_3000_b");
    agg("array_small_a", "array_small_b");
    agg("array_small_a", "run_0_10000");
    agg("run_0_10000", "array_small_a");
    agg("array_small_a", "bitmap_evens");
    agg("bitmap_evens", "odd_few");
    agg("run_0_10", "isolated_7");
    agg("run_0_10", "isolated_8");
    agg("run_0_10", "isolated_9");
    agg("isolated_8", "run_0_10");
    agg("run_0_10", "run_10_20");
    agg("node4_full", "key_4");
    agg("node16_full", "keys_16_18");
    agg("node48_full", "keys_100_103");
    agg("keys_60_reversed", "keys_0_300");
    agg("prefixed", "prefix_split_a");
    agg("prefixed", "prefix_split_b");
    agg("after_removals", "keys_30_36");
    agg("seven_and_high", "after_removals");
    agg("keys_0_5", "keys_5_12");

    System.out.println("{\n  \"library\": \"org.roaringbitmap:RoaringBitmap:1.3.0\",\n  \"cases\": [");
    System.out.println("    " + String.join(",\n    ", entries));
    System.out.println("  ]\n}");
  }
}
