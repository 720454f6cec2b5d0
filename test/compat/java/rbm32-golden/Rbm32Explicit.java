import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.roaringbitmap.RoaringBitmap;

/** Explicit bitmaps of Rbm32Golden: containers of a given kind, written in the portable format. */
class Rbm32Explicit {
  /** One container of an explicit bitmap: kind a/b/r and runs as (start, length - 1) pairs. */
  record Box(int key, char kind, int[] runs) {
    int cardinality() {
      int n = 0;
      for (int i = 1; i < runs.length; i += 2) n += runs[i] + 1;
      return n;
    }

    int bodyBytes() {
      if (kind == 'r') return 2 + 2 * runs.length;
      return kind == 'b' ? 8192 : 2 * cardinality();
    }
  }

  static List<Box> parse(String spec) {
    List<Box> boxes = new ArrayList<>();
    if (spec.isEmpty()) return boxes;
    for (String part : spec.split(";")) {
      int colon = part.indexOf(':');
      char kind = part.charAt(0);
      int key = (int) Rbm32Golden.parseValue(part.substring(1, colon));
      List<Integer> runs = new ArrayList<>();
      if (kind == 'r') {
        for (long[] item : Rbm32Golden.terms(part.substring(colon + 1))) {
          boolean stepped = item.length > 1 && item[1] - item[0] != 1;
          for (int i = 0; i < (stepped ? item.length : 1); i++) {
            runs.add((int) item[i]);
            runs.add(stepped ? 0 : (int) (item[item.length - 1] - item[0]));
          }
        }
      } else {
        RoaringBitmap values = new RoaringBitmap();
        for (long[] item : Rbm32Golden.terms(part.substring(colon + 1))) for (long v : item) values.add((int) v);
        for (int v : values) {
          runs.add(v);
          runs.add(0);
        }
      }
      boxes.add(new Box(key, kind, runs.stream().mapToInt(Integer::intValue).toArray()));
    }
    return boxes;
  }

  /** The portable format, written container by container as the boxes say. */
  static byte[] write(List<Box> boxes) {
    int size = boxes.size();
    boolean hasRun = boxes.stream().anyMatch(b -> b.kind() == 'r');
    boolean offsets = !hasRun || size >= 4;
    int header = (hasRun ? 4 + (size + 7) / 8 : 8) + 4 * size + (offsets ? 4 * size : 0);
    int total = header + boxes.stream().mapToInt(Box::bodyBytes).sum();
    ByteBuffer out = ByteBuffer.allocate(total).order(ByteOrder.LITTLE_ENDIAN);
    if (hasRun) {
      out.putInt(12347 | ((size - 1) << 16));
      byte[] marks = new byte[(size + 7) / 8];
      for (int i = 0; i < size; i++) if (boxes.get(i).kind() == 'r') marks[i / 8] |= (byte) (1 << (i % 8));
      out.put(marks);
    } else {
      out.putInt(12346).putInt(size);
    }
    for (Box b : boxes) out.putChar((char) b.key()).putChar((char) (b.cardinality() - 1));
    int offset = header;
    for (Box b : boxes) {
      if (!offsets) break;
      out.putInt(offset);
      offset += b.bodyBytes();
    }
    for (Box b : boxes) writeBody(out, b);
    return out.array();
  }

  static void writeBody(ByteBuffer out, Box b) {
    int[] runs = b.runs();
    if (b.kind() == 'r') {
      out.putChar((char) (runs.length / 2));
      for (int v : runs) out.putChar((char) v);
      return;
    }
    if (b.kind() == 'a') {
      for (int i = 0; i < runs.length; i += 2) for (int v = runs[i]; v <= runs[i] + runs[i + 1]; v++) out.putChar((char) v);
      return;
    }
    long[] words = new long[1024];
    for (int i = 0; i < runs.length; i += 2) for (int v = runs[i]; v <= runs[i] + runs[i + 1]; v++) words[v >>> 6] |= 1L << v;
    for (long w : words) out.putLong(w);
  }
}
