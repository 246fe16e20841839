;; The CPU backend's neighbour lists of the dense grid in WebAssembly, for every solver and thread count
;; (neighbours/wasm.ts runs it; docs/performance.md, "WebAssembly"): `denseNeighbours` mirrors denseNeighboursOneThread (neighbours/cpu.ts): the same candidates in
;; the same order and the same float64 distance test, so the half lists and the counts are the same as the
;; TypeScript loop's, entry for entry (tests/wasm.test.ts compares whole runs). Arrays are byte offsets into the
;; module's memory: float64 predicted positions, int32 cell keys (sorted, from sortDense), int32 bucket starts
;; (cells + 1), int32 neighbour starts (n + 1), counts (n) and half lists (up to `capacity` entries).
;; scripts/assembleWasm.mjs puts this function into the CPU module, whose memory wasm/state.ts lays out.
  ;; The five candidate ranges after cell `cell` in the dense numbering: range k starts at cell + r_k and holds one
  ;; cell (k = 0: the next one) or three (the rows of y + 1 and z + 1).
  (func $rangeFirst (param $cell i32) (param $k i32) (param $r0 i32) (param $r1 i32) (param $r2 i32) (param $r3 i32)
    (param $r4 i32) (result i32)
    (i32.add (local.get $cell)
      (select (local.get $r0)
        (select (local.get $r1)
          (select (local.get $r2)
            (select (local.get $r3) (local.get $r4) (i32.eq (local.get $k) (i32.const 3)))
            (i32.eq (local.get $k) (i32.const 2)))
          (i32.eq (local.get $k) (i32.const 1)))
        (i32.eqz (local.get $k)))))
  ;; denseNeighboursOneThread: for each run of particles in one cell, the own cell after the particle, then the
  ;; 13 forward cells. Returns the number of pairs; where a run's worst case (every candidate within h) would pass
  ;; `capacity` entries it stops and returns minus the entries that needs (at most 2^31 - 1), as the TypeScript
  ;; grows its array there (the caller grows it the same way and calls again).
  (func (export "denseNeighbours")
    (param $n i32) (param $x i32) (param $y i32) (param $z i32) (param $cellHash i32) (param $bucketStart i32)
    (param $start i32) (param $count i32) (param $neighbours i32) (param $capacity i32)
    (param $r0 i32) (param $r1 i32) (param $r2 i32) (param $r3 i32) (param $r4 i32) (param $hSquared f64)
    (result i32)
    (local $i i32) (local $j i32) (local $k i32) (local $total i32) (local $runStart i32) (local $runEnd i32)
    (local $cell i32) (local $candidates i32) (local $first i32) (local $to i32) (local $found i32)
    (local $address i32) (local $within i32) (local $needed i64)
    (local $xi f64) (local $yi f64) (local $zi f64) (local $rx f64) (local $ry f64) (local $rz f64)
    (local $j8 i32) (local $vx v128) (local $vy v128) (local $vz v128) (local $vh v128) (local $dx v128) (local $dy v128)
    (local $dz v128) (local $vwithin v128)
    (local.set $vh (f64x2.splat (local.get $hSquared)))
    ;; The counts start at zero (the TypeScript's neighbourCount.fill).
    (local.set $i (i32.const 0))
    (block $zeroDone (loop $zero
      (br_if $zeroDone (i32.ge_u (local.get $i) (local.get $n)))
      (i32.store (i32.add (local.get $count) (i32.shl (local.get $i) (i32.const 2))) (i32.const 0))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $zero)))
    (local.set $runStart (i32.const 0))
    (block $runsDone (loop $runs
      (br_if $runsDone (i32.ge_u (local.get $runStart) (local.get $n)))
      (local.set $cell (i32.load (i32.add (local.get $cellHash) (i32.shl (local.get $runStart) (i32.const 2)))))
      (local.set $runEnd (i32.load (i32.add (local.get $bucketStart) (i32.shl (i32.add (local.get $cell) (i32.const 1)) (i32.const 2)))))
      ;; Worst case for this run: every candidate of the 13 forward cells and the own cell.
      (local.set $candidates (i32.sub (local.get $runEnd) (local.get $runStart)))
      (local.set $k (i32.const 0))
      (block $worstDone (loop $worst
        (br_if $worstDone (i32.ge_u (local.get $k) (i32.const 5)))
        (local.set $address (i32.add (local.get $bucketStart)
          (i32.shl (call $rangeFirst (local.get $cell) (local.get $k) (local.get $r0) (local.get $r1) (local.get $r2)
            (local.get $r3) (local.get $r4)) (i32.const 2))))
        (local.set $candidates (i32.add (local.get $candidates)
          (i32.sub
            (i32.load (i32.add (local.get $address) (select (i32.const 4) (i32.const 12) (i32.eqz (local.get $k)))))
            (i32.load (local.get $address)))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $worst)))
      (local.set $needed (i64.add (i64.extend_i32_u (local.get $total))
        (i64.mul (i64.extend_i32_u (i32.sub (local.get $runEnd) (local.get $runStart))) (i64.extend_i32_u (local.get $candidates)))))
      (if (i64.gt_u (local.get $needed) (i64.extend_i32_u (local.get $capacity)))
        (then
          (if (i64.gt_u (local.get $needed) (i64.const 0x7fffffff)) (then (local.set $needed (i64.const 0x7fffffff))))
          (return (i32.sub (i32.const 0) (i32.wrap_i64 (local.get $needed))))))
      (local.set $i (local.get $runStart))
      (block $particlesDone (loop $particles
        (br_if $particlesDone (i32.ge_u (local.get $i) (local.get $runEnd)))
        (i32.store (i32.add (local.get $start) (i32.shl (local.get $i) (i32.const 2))) (local.get $total))
        (local.set $xi (f64.load (i32.add (local.get $x) (i32.shl (local.get $i) (i32.const 3)))))
        (local.set $yi (f64.load (i32.add (local.get $y) (i32.shl (local.get $i) (i32.const 3)))))
        (local.set $zi (f64.load (i32.add (local.get $z) (i32.shl (local.get $i) (i32.const 3)))))
        (local.set $vx (f64x2.splat (local.get $xi)))
        (local.set $vy (f64x2.splat (local.get $yi)))
        (local.set $vz (f64x2.splat (local.get $zi)))
        (local.set $found (i32.const 0))
        ;; Range -1: the own cell after i; ranges 0 to 4: the forward cells.
        (local.set $k (i32.const -1))
        (block $rangesDone (loop $ranges
          (br_if $rangesDone (i32.ge_s (local.get $k) (i32.const 5)))
          (if (i32.lt_s (local.get $k) (i32.const 0))
            (then
              (local.set $j (i32.add (local.get $i) (i32.const 1)))
              (local.set $to (local.get $runEnd)))
            (else
              ;; $rangeFirst, written out (a call per range costs more than its selects).
              (local.set $first (i32.add (local.get $cell)
                (select (local.get $r0)
                  (select (local.get $r1)
                    (select (local.get $r2)
                      (select (local.get $r3) (local.get $r4) (i32.eq (local.get $k) (i32.const 3)))
                      (i32.eq (local.get $k) (i32.const 2)))
                    (i32.eq (local.get $k) (i32.const 1)))
                  (i32.eqz (local.get $k)))))
              (local.set $j (i32.load (i32.add (local.get $bucketStart) (i32.shl (local.get $first) (i32.const 2)))))
              (local.set $to (i32.load (i32.add (local.get $bucketStart)
                (i32.shl (i32.add (local.get $first) (select (i32.const 1) (i32.const 3) (i32.eqz (local.get $k)))) (i32.const 2)))))))
          ;; Two candidates at a time in float64x2 lanes (the same float64 operations per lane as one at a time;
          ;; each lane of the test all ones, -1, where within h), then the last one alone below.
          (block $pairsDone (loop $pairs
            (br_if $pairsDone (i32.ge_s (i32.add (local.get $j) (i32.const 1)) (local.get $to)))
            (local.set $j8 (i32.shl (local.get $j) (i32.const 3)))
            (local.set $dx (f64x2.sub (local.get $vx) (v128.load align=8 (i32.add (local.get $x) (local.get $j8)))))
            (local.set $dy (f64x2.sub (local.get $vy) (v128.load align=8 (i32.add (local.get $y) (local.get $j8)))))
            (local.set $dz (f64x2.sub (local.get $vz) (v128.load align=8 (i32.add (local.get $z) (local.get $j8)))))
            (local.set $vwithin (f64x2.lt
              (f64x2.add (f64x2.add (f64x2.mul (local.get $dx) (local.get $dx)) (f64x2.mul (local.get $dy) (local.get $dy)))
                (f64x2.mul (local.get $dz) (local.get $dz)))
              (local.get $vh)))
            (local.set $within (i32.sub (i32.const 0) (i32.wrap_i64 (i64x2.extract_lane 0 (local.get $vwithin)))))
            (i32.store (i32.add (local.get $neighbours) (i32.shl (local.get $total) (i32.const 2))) (local.get $j))
            (local.set $total (i32.add (local.get $total) (local.get $within)))
            (local.set $address (i32.add (local.get $count) (i32.shl (local.get $j) (i32.const 2))))
            (i32.store (local.get $address) (i32.add (i32.load (local.get $address)) (local.get $within)))
            (local.set $found (i32.add (local.get $found) (local.get $within)))
            (local.set $within (i32.sub (i32.const 0) (i32.wrap_i64 (i64x2.extract_lane 1 (local.get $vwithin)))))
            (i32.store (i32.add (local.get $neighbours) (i32.shl (local.get $total) (i32.const 2)))
              (i32.add (local.get $j) (i32.const 1)))
            (local.set $total (i32.add (local.get $total) (local.get $within)))
            (i32.store offset=4 (local.get $address) (i32.add (i32.load offset=4 (local.get $address)) (local.get $within)))
            (local.set $found (i32.add (local.get $found) (local.get $within)))
            (local.set $j (i32.add (local.get $j) (i32.const 2)))
            (br $pairs)))
          (block $scanDone (loop $scan
            (br_if $scanDone (i32.ge_s (local.get $j) (local.get $to)))
            (local.set $rx (f64.sub (local.get $xi) (f64.load (i32.add (local.get $x) (i32.shl (local.get $j) (i32.const 3))))))
            (local.set $ry (f64.sub (local.get $yi) (f64.load (i32.add (local.get $y) (i32.shl (local.get $j) (i32.const 3))))))
            (local.set $rz (f64.sub (local.get $zi) (f64.load (i32.add (local.get $z) (i32.shl (local.get $j) (i32.const 3))))))
            ;; Without a branch (within h or not is as likely as not near the cell's edge): j goes to the next slot
            ;; either way, and the slot is kept, the counts raised, only for a pair within h. The run's worst case
            ;; fits the capacity, so the slot is in bounds.
            (local.set $within (f64.lt
              (f64.add (f64.add (f64.mul (local.get $rx) (local.get $rx)) (f64.mul (local.get $ry) (local.get $ry)))
                (f64.mul (local.get $rz) (local.get $rz)))
              (local.get $hSquared)))
            (i32.store (i32.add (local.get $neighbours) (i32.shl (local.get $total) (i32.const 2))) (local.get $j))
            (local.set $total (i32.add (local.get $total) (local.get $within)))
            (local.set $address (i32.add (local.get $count) (i32.shl (local.get $j) (i32.const 2))))
            (i32.store (local.get $address) (i32.add (i32.load (local.get $address)) (local.get $within)))
            (local.set $found (i32.add (local.get $found) (local.get $within)))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $scan)))
          (local.set $k (i32.add (local.get $k) (i32.const 1)))
          (br $ranges)))
        (local.set $address (i32.add (local.get $count) (i32.shl (local.get $i) (i32.const 2))))
        (i32.store (local.get $address) (i32.add (i32.load (local.get $address)) (local.get $found)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $particles)))
      (local.set $runStart (local.get $runEnd))
      (br $runs)))
    (i32.store (i32.add (local.get $start) (i32.shl (local.get $n) (i32.const 2))) (local.get $total))
    (local.get $total))
