import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.roaringbitmap.RoaringBitmap;

/**
 * Golden vectors for the rbm32 aggregation, printed as JSON: RoaringBitmap bytes as Fluss 0.9.1
 * writes them (runOptimize, then serialize(ByteBuffer)), and the result of its aggregation
 * (deserialize(ByteBuffer) of both sides, or, runOptimize, serialize) for pairs of them.
 *
 * <pre>
 * mvn -q dependency:get -Dartifact=org.roaringbitmap:RoaringBitmap:1.3.0
 * JAR=~/.m2/repository/org/roaringbitmap/RoaringBitmap/1.3.0/RoaringBitmap-1.3.0.jar
 * javac -d /tmp/rbm32-golden -cp $JAR test/compat/java/rbm32-golden/*.java
 * java -cp /tmp/rbm32-golden:$JAR Rbm32Golden \
 *   > services/tablet/src/kv/rowmerger/aggregate/test-fixtures/rbm32-golden.json
 * npx biome format --write services/tablet/src/kv/rowmerger/aggregate/test-fixtures/rbm32-golden.json
 * </pre>
 *
 * <p>Bitmaps come in three forms:
 *
 * <ul>
 *   <li>{@code fluss}: the spec lists values in insertion order, comma-separated terms {@code v} or
 *       {@code from..to/step} (to exclusive), decimal or 0x hex unsigned 32-bit values; the bytes are
 *       what Fluss stores for a RoaringBitmap built by add() calls.
 *   <li>{@code explicit}: the spec names each container's kind, as another writer (or Java without
 *       runOptimize) may have left it: {@code ;}-separated containers {@code <kind><key>:<items>},
 *       kind {@code a} array, {@code b} bitmap or {@code r} run, items {@code v} or
 *       {@code from..to/step} (to exclusive). Each item of a run container is one run (a stepped
 *       item one run per value), written as given: adjacent runs stay apart (Rbm32Explicit).
 *       Java must write the bytes back unchanged when it reads them.
 *   <li>{@code hex}: literal bytes that Java accepts, always printed in full.
 * </ul>
 *
 * <p>The {@code random} entry covers seeded pairs of explicit bitmaps built by {@link Rng}: per case
 * the size of the merged bytes, and per batch the SHA-256 of the inputs and of the results, each
 * as a sequence of int32 little-endian length + bytes (Rbm32Random). Other bytes up to 1024 long
 * are printed in full, longer ones as their length and SHA-256. {@code --case N} prints one random case in hex instead.
 */
public class Rbm32Golden {
  static final int MAX_HEX_BYTES = 1024;
  static final int RANDOM_SEED = 0x5eed32;
  static final int RANDOM_CASES = 3000;
  static final int RANDOM_BATCH = 100;
  static final int[] RANDOM_KEYS = {0, 1, 2, 0xffff};
  static final Map<String, byte[]> bitmaps = new LinkedHashMap<>();
  static final List<String> entries = new ArrayList<>();

  /** mulberry32: the same stream in Java and JavaScript. */
  static final class Rng {
    int state;

    Rng(int seed) {
      state = seed;
    }

    int next() {
      state += 0x6d2b79f5;
      int t = state;
      t = (t ^ (t >>> 15)) * (t | 1);
      t ^= t + ((t ^ (t >>> 7)) * (t | 61));
      return t ^ (t >>> 14);
    }

    int below(int n) {
      return Integer.remainderUnsigned(next(), n);
    }
  }

  static long parseValue(String s) {
    s = s.trim();
    if (s.startsWith("0x")) return Long.parseLong(s.substring(2), 16);
    return Long.parseLong(s);
  }

  /** The values of a term list, in order: each item is one int[] of values. */
  static List<long[]> terms(String spec) {
    List<long[]> out = new ArrayList<>();
    if (spec.isEmpty()) return out;
    for (String term : spec.split(",")) {
      if (!term.contains("..")) {
        out.add(new long[] {parseValue(term)});
        continue;
      }
      String[] fromRest = term.split("\\.\\.");
      String[] toStep = fromRest[1].split("/");
      long from = parseValue(fromRest[0]);
      long to = parseValue(toStep[0]);
      long step = toStep.length > 1 ? parseValue(toStep[1]) : 1;
      List<Long> values = new ArrayList<>();
      for (long v = from; step > 0 ? v < to : v > to; v += step) values.add(v);
      out.add(values.stream().mapToLong(Long::longValue).toArray());
    }
    return out;
  }

  static RoaringBitmap of(String spec) {
    RoaringBitmap b = new RoaringBitmap();
    for (long[] values : terms(spec)) for (long v : values) b.add((int) v);
    return b;
  }

  /** Fluss's RoaringBitmapUtils.serializeRoaringBitmap32. */
  static byte[] serialize(RoaringBitmap b) {
    b.runOptimize();
    return serializeAsIs(b);
  }

  static byte[] serializeAsIs(RoaringBitmap b) {
    ByteBuffer buffer = ByteBuffer.allocate(b.serializedSizeInBytes());
    b.serialize(buffer);
    return buffer.array();
  }

  static RoaringBitmap read(byte[] bytes) throws IOException {
    RoaringBitmap b = new RoaringBitmap();
    b.deserialize(ByteBuffer.wrap(bytes));
    return b;
  }

  /** FieldRoaringBitmap32Agg.agg for two non-null values. */
  static byte[] agg(byte[] acc, byte[] input) throws IOException {
    RoaringBitmap a = read(acc);
    a.or(read(input));
    return serialize(a);
  }

  /** An explicit bitmap's bytes, checked to be what Java writes back without runOptimize. */
  static byte[] writeChecked(List<Rbm32Explicit.Box> boxes) throws IOException {
    byte[] bytes = Rbm32Explicit.write(boxes);
    if (!Arrays.equals(serializeAsIs(read(bytes)), bytes)) {
      throw new IllegalStateException("Java does not read back " + HexFormat.of().formatHex(bytes));
    }
    return bytes;
  }

  static String bytesJson(byte[] bytes, boolean fullHex) throws Exception {
    String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    boolean printHex = fullHex || bytes.length <= MAX_HEX_BYTES;
    String hex = printHex ? ", \"hex\": \"" + HexFormat.of().formatHex(bytes) + "\"" : "";
    return "\"size\": " + bytes.length + ", \"sha256\": \"" + sha + "\"" + hex;
  }

  static void put(String name, String form, String spec, byte[] bytes) throws Exception {
    bitmaps.put(name, bytes);
    String head = "{\"kind\": \"bitmap\", \"name\": \"" + name + "\", \"form\": \"" + form + "\", ";
    entries.add(head + "\"spec\": \"" + spec + "\", " + bytesJson(bytes, form.equals("hex")) + "}");
  }

  static void bitmap(String name, String spec) throws Exception {
    put(name, "fluss", spec, serialize(of(spec)));
  }

  static void explicitBitmap(String name, String spec) throws Exception {
    put(name, "explicit", spec, writeChecked(Rbm32Explicit.parse(spec)));
  }

  static void hexBitmap(String name, String hex) throws Exception {
    byte[] bytes = HexFormat.of().parseHex(hex);
    read(bytes);
    put(name, "hex", hex, bytes);
  }

  static void agg(String acc, String input) throws Exception {
    byte[] out = agg(bitmaps.get(acc), bitmaps.get(input));
    entries.add("{\"kind\": \"agg\", \"acc\": \"" + acc + "\", \"input\": \"" + input + "\", " + bytesJson(out, false) + "}");
  }

  public static void main(String[] args) throws Exception {
    if (args.length == 2 && args[0].equals("--case")) {
      printRandomCase(Integer.parseInt(args[1]));
      return;
    }
    Rbm32Cases.bitmaps();
    Rbm32Cases.aggs();
    entries.add(Rbm32Random.entry());
    System.out.println("{\n  \"library\": \"org.roaringbitmap:RoaringBitmap:1.3.0\",\n  \"cases\": [");
    System.out.println("    " + String.join(",\n    ", entries));
    System.out.println("  ]\n}");
  }

  static void printRandomCase(int index) throws Exception {
    byte[][] pair = Rbm32Random.inputs(index);
    HexFormat hex = HexFormat.of();
    System.out.println("acc    " + hex.formatHex(pair[0]));
    System.out.println("input  " + hex.formatHex(pair[1]));
    System.out.println("result " + hex.formatHex(agg(pair[0], pair[1])));
  }
}
