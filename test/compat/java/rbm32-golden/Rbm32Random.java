import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/** Seeded random pairs of explicit bitmaps (mirrored by the TypeScript test, draw for draw). */
class Rbm32Random {
  static String entry() throws Exception {
    int count = Rbm32Golden.RANDOM_CASES;
    int batch = Rbm32Golden.RANDOM_BATCH;
    List<String> sizes = new ArrayList<>();
    List<String> inputDigests = new ArrayList<>();
    List<String> resultDigests = new ArrayList<>();
    MessageDigest inputs = MessageDigest.getInstance("SHA-256");
    MessageDigest results = MessageDigest.getInstance("SHA-256");
    for (int i = 0; i < count; i++) {
      byte[][] pair = inputs(i);
      byte[] out = Rbm32Golden.agg(pair[0], pair[1]);
      sizes.add(Integer.toString(out.length));
      digest(inputs, pair[0]);
      digest(inputs, pair[1]);
      digest(results, out);
      if ((i + 1) % batch == 0 || i + 1 == count) {
        inputDigests.add("\"" + HexFormat.of().formatHex(inputs.digest()) + "\"");
        resultDigests.add("\"" + HexFormat.of().formatHex(results.digest()) + "\"");
      }
    }
    return "{\"kind\": \"random\", \"seed\": " + Rbm32Golden.RANDOM_SEED + ", \"count\": " + count
        + ", \"batch\": " + batch + ", \"sizes\": [" + String.join(", ", sizes) + "], \"inputsSha256\": ["
        + String.join(", ", inputDigests) + "], \"resultsSha256\": [" + String.join(", ", resultDigests) + "]}";
  }

  static void digest(MessageDigest md, byte[] bytes) {
    md.update(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(bytes.length).array());
    md.update(bytes);
  }

  static byte[][] inputs(int index) throws IOException {
    Rbm32Golden.Rng rng = new Rbm32Golden.Rng(Rbm32Golden.RANDOM_SEED + index);
    List<Rbm32Explicit.Box> acc = bitmap(rng);
    List<Rbm32Explicit.Box> input = bitmap(rng);
    return new byte[][] {Rbm32Golden.writeChecked(acc), Rbm32Golden.writeChecked(input)};
  }

  static List<Rbm32Explicit.Box> bitmap(Rbm32Golden.Rng rng) {
    int mask = rng.below(16);
    List<Rbm32Explicit.Box> boxes = new ArrayList<>();
    for (int i = 0; i < 4; i++) if ((mask & (1 << i)) != 0) boxes.add(box(rng, Rbm32Golden.RANDOM_KEYS[i]));
    return boxes;
  }

  static Rbm32Explicit.Box box(Rbm32Golden.Rng rng, int key) {
    int[] runs = Runs.random(rng);
    int pick = rng.below(4);
    if (pick == 1) runs = Runs.split(runs, rng);
    int cardinality = new Rbm32Explicit.Box(key, 'r', runs).cardinality();
    char kind = pick <= 1 ? 'r' : cardinality <= 4096 ? 'a' : 'b';
    return new Rbm32Explicit.Box(key, kind, runs);
  }
}

/** Random run lists in ten shapes that sit on or near the limits where Java's choices change. */
class Runs {
  final List<Integer> runs = new ArrayList<>();
  int end = -2;

  /** Appends [start, start + length), cut at 65535; nothing when start is past it. */
  void add(int start, int length) {
    if (start > 65535) return;
    end = Math.min(start + length - 1, 65535);
    runs.add(start);
    runs.add(end - start);
  }

  static int[] random(Rbm32Golden.Rng rng) {
    Runs r = new Runs();
    switch (rng.below(10)) {
      case 0 -> {
        int n = 1 + rng.below(24);
        r.add(rng.below(32), 1 + rng.below(2));
        for (int i = 1; i < n; i++) r.add(r.end + 2 + rng.below(3), 1 + rng.below(2));
      }
      case 1 -> {
        int n = 1 + rng.below(8);
        r.add(rng.below(16), 2 + rng.below(2));
        for (int i = 1; i < n; i++) r.add(r.end + 2 + rng.below(2), 2);
      }
      case 2 -> r.add(rng.below(128), 1 + rng.below(20000));
      case 3 -> {
        int n = 4090 + rng.below(12);
        r.add(2 * rng.below(4), 1);
        for (int i = 1; i < n; i++) r.add(r.end + 2, 1);
      }
      case 4 -> {
        int n = 2040 + rng.below(12);
        r.add(rng.below(4), 2 + rng.below(2));
        for (int i = 1; i < n; i++) r.add(r.end + 2, 2 + rng.below(2));
      }
      case 5 -> r.add(0, 65536);
      case 6 -> {
        int holes = 1 + rng.below(4);
        r.add(0, 1 + rng.below(20000));
        for (int i = 0; i < holes; i++) r.add(r.end + 2, 1 + rng.below(20000));
        r.add(r.end + 2, 65536);
      }
      case 7 -> {
        int n = 1 + rng.below(3000);
        r.add(rng.below(16), 1 + rng.below(20));
        for (int i = 1; i < n; i++) r.add(r.end + 2 + rng.below(20), 1 + rng.below(20));
      }
      case 8 -> {
        int n = 1 + rng.below(4);
        r.add(65536 - 8 * n - rng.below(8), 1 + rng.below(4));
        for (int i = 1; i < n; i++) r.add(r.end + 2 + rng.below(3), 1 + rng.below(4));
        if (rng.below(2) == 0) r.add(r.end + 2, 65536);
      }
      default -> {
        int n = 1 + rng.below(40);
        r.add(rng.below(2000), 1);
        for (int i = 1; i < n; i++) r.add(r.end + 2 + rng.below(3000), 1);
      }
    }
    return r.runs.stream().mapToInt(Integer::intValue).toArray();
  }

  /** Splits one run of two or more values into two adjacent runs (a non-normalized container). */
  static int[] split(int[] runs, Rbm32Golden.Rng rng) {
    int i = 2 * rng.below(runs.length / 2);
    if (runs[i + 1] == 0) return runs;
    int at = 1 + rng.below(runs[i + 1]);
    int[] out = new int[runs.length + 2];
    System.arraycopy(runs, 0, out, 0, i);
    out[i] = runs[i];
    out[i + 1] = at - 1;
    out[i + 2] = runs[i] + at;
    out[i + 3] = runs[i + 1] - at;
    System.arraycopy(runs, i + 2, out, i + 4, runs.length - i - 2);
    return out;
  }
}
