/** The named bitmaps and merges: kinds, ties, thresholds and edges Java's union depends on. */
class Rbm32Cases {
  static void bitmaps() throws Exception {
    Rbm32Golden.bitmap("empty", "");
    Rbm32Golden.bitmap("one_7", "7");
    Rbm32Golden.bitmap("one_9000", "9000");
    Rbm32Golden.bitmap("of_1_2", "1,2");
    Rbm32Golden.bitmap("of_2_3", "2,3");
    Rbm32Golden.bitmap("array_1_2_3", "3,1,2");
    Rbm32Golden.bitmap("run_0_10", "0..10");
    Rbm32Golden.bitmap("run_10_20", "10..20");
    Rbm32Golden.bitmap("run_0_100", "99..-1/-1");
    Rbm32Golden.bitmap("isolated_8", "20..36/2");
    Rbm32Golden.bitmap("isolated_9", "20..38/2");
    Rbm32Golden.bitmap("pairs_3", "20,21,30,31,40,41");
    Rbm32Golden.bitmap("evens_10000", "0..10000/2");
    Rbm32Golden.bitmap("evens_8192", "0..8192/2");
    Rbm32Golden.bitmap("odds_8192", "1..8192/2");
    Rbm32Golden.bitmap("evens_8194", "0..8194/2");
    Rbm32Golden.bitmap("by4_2048", "0..8192/4");
    Rbm32Golden.bitmap("by4_2048_b", "2..8192/4");
    Rbm32Golden.bitmap("by4_2049_b", "2..8196/4");
    Rbm32Golden.bitmap("by4_3000", "0..12000/4");
    Rbm32Golden.bitmap("by8_1500", "0..12000/8");
    Rbm32Golden.bitmap("evens_all", "0..65536/2");
    Rbm32Golden.bitmap("odds_all", "1..65536/2");
    Rbm32Golden.bitmap("full", "0..65536");
    Rbm32Golden.bitmap("runs_2047", "0..8188/4,1..8188/4,2..8188/4");
    Rbm32Golden.bitmap("runs_2048", "0..8192/4,1..8192/4,2..8192/4");
    Rbm32Golden.bitmap("max", "0xffffffff");
    Rbm32Golden.bitmap("top_run", "0xffffff00..0x100000000");
    Rbm32Golden.bitmap("top_array", "0xfffffffe,0x7fffffff,0x80000000");
    Rbm32Golden.bitmap("keys_0_4_arrays", "0,0x10000,0x20000,0x30000,0x40000");
    Rbm32Golden.bitmap("keys_2_6_runs", "0x20000..0x20010,0x30005..0x30020,0x40000..0x40100,0x50000..0x50010,0x60000..0x60003");
    Rbm32Golden.bitmap("keys_0_2_runs", "0..10,0x10000..0x10010,0x20000..0x20005");
    Rbm32Golden.bitmap("keys_0_9_mixed", "0..10,0x10003,0x20000..0x20400/3,0x30000..0x30100,0x40001,0x50000..0x58000/2,0x60000..0x60040,0x70000,0x80000..0x80100,0x90007");
    Rbm32Golden.explicitBitmap("run_1_3", "r0:1..4");
    Rbm32Golden.explicitBitmap("run_pairs", "r0:1..3,5..7");
    Rbm32Golden.explicitBitmap("run_pairs_odd", "r0:1..4,6..8");
    Rbm32Golden.explicitBitmap("run_inefficient", "r0:1,3,5,7");
    Rbm32Golden.explicitBitmap("run_adjacent", "r0:0..5,5..10");
    Rbm32Golden.explicitBitmap("run_adjacent_full", "r0:0..32768,32768..65536");
    Rbm32Golden.explicitBitmap("run_full", "r0:0..65536");
    Rbm32Golden.explicitBitmap("run_singles_2047", "r0:0..4094/2");
    Rbm32Golden.explicitBitmap("run_singles_5000", "r0:0..10000/2");
    Rbm32Golden.explicitBitmap("run_top", "r0xffff:65000..65536");
    Rbm32Golden.explicitBitmap("array_0_100", "a0:0..100");
    Rbm32Golden.explicitBitmap("array_100_200", "a0:100..200");
    Rbm32Golden.explicitBitmap("bitmap_0_5000", "b0:0..5000");
    Rbm32Golden.explicitBitmap("bitmap_runs_2048", "b0:0..8192/4,1..8192/4,2..8192/4");
    Rbm32Golden.explicitBitmap("mixed_kinds", "a0:1,2,3;b1:0..6000;r2:0..4,4..8;r3:7;a0xffff:65535");
    Rbm32Golden.explicitBitmap("runs_on_9_keys", "r0:1..3;r1:1..3;r2:1..3;r3:1..3;r4:1..3;r5:1..3;r6:1..3;r7:1..3;r8:1,3");
    // a run cookie with no run container: Java reads the array and writes the cookie without runs
    Rbm32Golden.hexBitmap("run_cookie_no_runs", "3b300000" + "00" + "00000100" + "01000200");
  }

  static void aggs() throws Exception {
    String[][] pairs = {
      {"of_1_2", "of_2_3"}, {"empty", "empty"}, {"empty", "of_1_2"}, {"of_1_2", "empty"},
      {"run_0_10", "run_10_20"}, {"run_1_3", "one_7"}, {"one_7", "run_1_3"}, {"of_1_2", "run_1_3"},
      {"run_1_3", "empty"}, {"empty", "run_1_3"}, {"array_1_2_3", "empty"}, {"array_1_2_3", "of_1_2"},
      {"run_pairs", "empty"}, {"run_pairs", "of_1_2"}, {"run_pairs_odd", "empty"}, {"run_pairs", "run_pairs_odd"},
      {"run_inefficient", "empty"}, {"empty", "run_inefficient"}, {"run_inefficient", "one_9000"},
      {"run_inefficient", "run_1_3"}, {"run_adjacent", "empty"}, {"empty", "run_adjacent"},
      {"run_adjacent", "one_7"}, {"run_adjacent", "run_10_20"}, {"run_adjacent_full", "empty"},
      {"run_adjacent_full", "of_1_2"}, {"run_adjacent_full", "evens_10000"}, {"run_full", "evens_10000"},
      {"evens_10000", "run_full"}, {"of_1_2", "run_full"}, {"run_full", "run_adjacent"}, {"evens_all", "odds_all"},
      {"evens_all", "full"}, {"evens_8192", "odds_8192"}, {"evens_8192", "one_9000"}, {"evens_8194", "empty"},
      {"by4_2048", "by4_2048_b"}, {"by4_2048", "by4_2049_b"}, {"by4_3000", "by8_1500"}, {"by8_1500", "by4_3000"},
      {"runs_2047", "one_9000"}, {"runs_2047", "empty"}, {"runs_2048", "empty"}, {"runs_2048", "array_1_2_3"},
      {"bitmap_runs_2048", "array_1_2_3"}, {"bitmap_runs_2048", "empty"}, {"run_0_10", "isolated_8"},
      {"run_0_10", "isolated_9"}, {"isolated_8", "run_0_10"}, {"isolated_9", "run_0_10"}, {"pairs_3", "run_0_10"},
      {"pairs_3", "empty"}, {"run_singles_2047", "empty"}, {"run_singles_5000", "empty"},
      {"run_singles_5000", "of_1_2"}, {"run_singles_5000", "run_0_10"}, {"run_0_100", "run_singles_2047"},
      {"evens_10000", "run_0_100"}, {"run_0_100", "evens_10000"}, {"array_0_100", "empty"},
      {"array_0_100", "array_100_200"}, {"array_100_200", "run_0_10"}, {"bitmap_0_5000", "empty"},
      {"bitmap_0_5000", "of_1_2"}, {"bitmap_0_5000", "run_0_100"}, {"max", "top_run"}, {"top_run", "run_top"},
      {"run_top", "top_array"}, {"top_array", "max"}, {"keys_0_4_arrays", "keys_2_6_runs"},
      {"keys_2_6_runs", "keys_0_4_arrays"}, {"keys_0_2_runs", "keys_0_4_arrays"}, {"keys_0_9_mixed", "keys_2_6_runs"},
      {"mixed_kinds", "empty"}, {"mixed_kinds", "keys_0_2_runs"}, {"keys_0_2_runs", "mixed_kinds"},
      {"runs_on_9_keys", "empty"}, {"runs_on_9_keys", "keys_0_9_mixed"}, {"run_cookie_no_runs", "empty"},
      {"run_cookie_no_runs", "of_2_3"}, {"of_2_3", "run_cookie_no_runs"},
    };
    for (String[] pair : pairs) Rbm32Golden.agg(pair[0], pair[1]);
  }
}
