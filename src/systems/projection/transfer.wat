;; The coarse projection's particle transfers on the CPU in WebAssembly (projection/wasm.ts runs them; docs/
;; performance.md, "WebAssembly"): `scatterParticles` mirrors the particle loop of scatterToGrid and
;; `gatherParticles` that of gatherFromGrid (projection/transfer.ts), with faceStencil's weights, and
;; `faceChanges` and `faceTransfers` mirror faceChanges and the faces' part of gatherFromGrid: the same float64
;; operations in the same order, so the faces' sums and the particles' changes are bit-identical to the
;; TypeScript loops' (WebAssembly fuses no multiply-add; tests/wasm.test.ts compares whole runs). Arrays are byte
;; offsets into the module's memory: per particle float64 grid coordinates (3 each), int32 cells and counts,
;; float64 values, uint16 materials; per face the three axes' arrays one after the other (`cells` entries each):
;; int32 kinds, float64 sums; per cell float64 error sums and int32 error counts; `stencils` holds each particle's
;; three stencils (axis a of particle i at byte 96 (3 i + a)), each 32 bytes of int32 faces then 64 of float64
;; weights. scripts/assembleWasm.mjs puts these functions into the CPU module, whose
;; memory wasm/state.ts lays out.
  ;; faceStencil: the 8 faces of axis a around the particle at grid coordinates (gx, gy, gz) and their trilinear
  ;; weights, normalised over the faces that are not dead (FaceKind.dead, -3), into `stencil`. A NaN coordinate
  ;; (a particle that blew up, whose cell markFluidCells stored as 0) makes every face 0, as the TypeScript's
  ;; Int32Array stores its NaN face numbers, and the weights NaN but where face 0 is dead.
  (func $faceStencil (param $gx f64) (param $gy f64) (param $gz f64) (param $a i32) (param $nx i32) (param $nxy i32)
    (param $kind i32) (param $stencil i32)
    (local $fx f64) (local $fy f64) (local $fz f64) (local $bx f64) (local $by f64) (local $bz f64)
    (local $tx f64) (local $ty f64) (local $tz f64) (local $ux f64) (local $uy f64) (local $uz f64)
    (local $base i32) (local $total f64) (local $scale f64) (local $number i32) (local $face i32) (local $dead i32)
    (local $w0 f64) (local $w1 f64) (local $w2 f64) (local $w3 f64) (local $w4 f64) (local $w5 f64) (local $w6 f64) (local $w7 f64)
    (local.set $fx (select (local.get $gx) (f64.sub (local.get $gx) (f64.const 0.5)) (i32.eqz (local.get $a))))
    (local.set $fy (select (local.get $gy) (f64.sub (local.get $gy) (f64.const 0.5)) (i32.eq (local.get $a) (i32.const 1))))
    (local.set $fz (select (local.get $gz) (f64.sub (local.get $gz) (f64.const 0.5)) (i32.eq (local.get $a) (i32.const 2))))
    (local.set $bx (f64.floor (local.get $fx)))
    (local.set $by (f64.floor (local.get $fy)))
    (local.set $bz (f64.floor (local.get $fz)))
    ;; 1, or 0 where a coordinate is NaN (every face number is then 0).
    (local.set $number (i32.and (i32.and
      (f64.eq (local.get $bx) (local.get $bx)) (f64.eq (local.get $by) (local.get $by)))
      (f64.eq (local.get $bz) (local.get $bz))))
    (local.set $tx (f64.sub (local.get $fx) (local.get $bx)))
    (local.set $ty (f64.sub (local.get $fy) (local.get $by)))
    (local.set $tz (f64.sub (local.get $fz) (local.get $bz)))
    (local.set $ux (f64.sub (f64.const 1) (local.get $tx)))
    (local.set $uy (f64.sub (f64.const 1) (local.get $ty)))
    (local.set $uz (f64.sub (f64.const 1) (local.get $tz)))
    (local.set $base (i32.add (i32.add
      (i32.mul (i32.trunc_sat_f64_s (local.get $bz)) (local.get $nxy))
      (i32.mul (i32.trunc_sat_f64_s (local.get $by)) (local.get $nx)))
      (i32.trunc_sat_f64_s (local.get $bx))))
    ;; Face k and its weight, unrolled (locals, not the memory, between the steps): a dead face weighs nothing,
    ;; the others are summed in order.
    (local.set $total (f64.const 0))
    (local.set $face (i32.mul (local.get $number) (i32.add (local.get $base) (i32.const 0))))
    (i32.store offset=0 (local.get $stencil) (local.get $face))
    (local.set $dead (i32.eq (i32.load (i32.add (local.get $kind) (i32.shl (local.get $face) (i32.const 2)))) (i32.const -3)))
    (local.set $w0 (select (f64.const 0) (f64.mul (f64.mul (local.get $ux) (local.get $uy)) (local.get $uz)) (local.get $dead)))
    (local.set $total (select (local.get $total) (f64.add (local.get $total) (local.get $w0)) (local.get $dead)))
    (local.set $face (i32.mul (local.get $number) (i32.add (local.get $base) (i32.const 1))))
    (i32.store offset=4 (local.get $stencil) (local.get $face))
    (local.set $dead (i32.eq (i32.load (i32.add (local.get $kind) (i32.shl (local.get $face) (i32.const 2)))) (i32.const -3)))
    (local.set $w1 (select (f64.const 0) (f64.mul (f64.mul (local.get $tx) (local.get $uy)) (local.get $uz)) (local.get $dead)))
    (local.set $total (select (local.get $total) (f64.add (local.get $total) (local.get $w1)) (local.get $dead)))
    (local.set $face (i32.mul (local.get $number) (i32.add (local.get $base) (local.get $nx))))
    (i32.store offset=8 (local.get $stencil) (local.get $face))
    (local.set $dead (i32.eq (i32.load (i32.add (local.get $kind) (i32.shl (local.get $face) (i32.const 2)))) (i32.const -3)))
    (local.set $w2 (select (f64.const 0) (f64.mul (f64.mul (local.get $ux) (local.get $ty)) (local.get $uz)) (local.get $dead)))
    (local.set $total (select (local.get $total) (f64.add (local.get $total) (local.get $w2)) (local.get $dead)))
    (local.set $face (i32.mul (local.get $number) (i32.add (local.get $base) (i32.add (local.get $nx) (i32.const 1)))))
    (i32.store offset=12 (local.get $stencil) (local.get $face))
    (local.set $dead (i32.eq (i32.load (i32.add (local.get $kind) (i32.shl (local.get $face) (i32.const 2)))) (i32.const -3)))
    (local.set $w3 (select (f64.const 0) (f64.mul (f64.mul (local.get $tx) (local.get $ty)) (local.get $uz)) (local.get $dead)))
    (local.set $total (select (local.get $total) (f64.add (local.get $total) (local.get $w3)) (local.get $dead)))
    (local.set $face (i32.mul (local.get $number) (i32.add (local.get $base) (local.get $nxy))))
    (i32.store offset=16 (local.get $stencil) (local.get $face))
    (local.set $dead (i32.eq (i32.load (i32.add (local.get $kind) (i32.shl (local.get $face) (i32.const 2)))) (i32.const -3)))
    (local.set $w4 (select (f64.const 0) (f64.mul (f64.mul (local.get $ux) (local.get $uy)) (local.get $tz)) (local.get $dead)))
    (local.set $total (select (local.get $total) (f64.add (local.get $total) (local.get $w4)) (local.get $dead)))
    (local.set $face (i32.mul (local.get $number) (i32.add (local.get $base) (i32.add (local.get $nxy) (i32.const 1)))))
    (i32.store offset=20 (local.get $stencil) (local.get $face))
    (local.set $dead (i32.eq (i32.load (i32.add (local.get $kind) (i32.shl (local.get $face) (i32.const 2)))) (i32.const -3)))
    (local.set $w5 (select (f64.const 0) (f64.mul (f64.mul (local.get $tx) (local.get $uy)) (local.get $tz)) (local.get $dead)))
    (local.set $total (select (local.get $total) (f64.add (local.get $total) (local.get $w5)) (local.get $dead)))
    (local.set $face (i32.mul (local.get $number) (i32.add (local.get $base) (i32.add (local.get $nxy) (local.get $nx)))))
    (i32.store offset=24 (local.get $stencil) (local.get $face))
    (local.set $dead (i32.eq (i32.load (i32.add (local.get $kind) (i32.shl (local.get $face) (i32.const 2)))) (i32.const -3)))
    (local.set $w6 (select (f64.const 0) (f64.mul (f64.mul (local.get $ux) (local.get $ty)) (local.get $tz)) (local.get $dead)))
    (local.set $total (select (local.get $total) (f64.add (local.get $total) (local.get $w6)) (local.get $dead)))
    (local.set $face (i32.mul (local.get $number) (i32.add (local.get $base) (i32.add (i32.add (local.get $nxy) (local.get $nx)) (i32.const 1)))))
    (i32.store offset=28 (local.get $stencil) (local.get $face))
    (local.set $dead (i32.eq (i32.load (i32.add (local.get $kind) (i32.shl (local.get $face) (i32.const 2)))) (i32.const -3)))
    (local.set $w7 (select (f64.const 0) (f64.mul (f64.mul (local.get $tx) (local.get $ty)) (local.get $tz)) (local.get $dead)))
    (local.set $total (select (local.get $total) (f64.add (local.get $total) (local.get $w7)) (local.get $dead)))
    (if (f64.ne (local.get $total) (f64.const 1))
      (then
        (local.set $scale (select (f64.div (f64.const 1) (local.get $total)) (f64.const 0) (f64.gt (local.get $total) (f64.const 0))))
        (local.set $w0 (f64.mul (local.get $w0) (local.get $scale)))
        (local.set $w1 (f64.mul (local.get $w1) (local.get $scale)))
        (local.set $w2 (f64.mul (local.get $w2) (local.get $scale)))
        (local.set $w3 (f64.mul (local.get $w3) (local.get $scale)))
        (local.set $w4 (f64.mul (local.get $w4) (local.get $scale)))
        (local.set $w5 (f64.mul (local.get $w5) (local.get $scale)))
        (local.set $w6 (f64.mul (local.get $w6) (local.get $scale)))
        (local.set $w7 (f64.mul (local.get $w7) (local.get $scale)))))
    (f64.store offset=32 (local.get $stencil) (local.get $w0))
    (f64.store offset=40 (local.get $stencil) (local.get $w1))
    (f64.store offset=48 (local.get $stencil) (local.get $w2))
    (f64.store offset=56 (local.get $stencil) (local.get $w3))
    (f64.store offset=64 (local.get $stencil) (local.get $w4))
    (f64.store offset=72 (local.get $stencil) (local.get $w5))
    (f64.store offset=80 (local.get $stencil) (local.get $w6))
    (f64.store offset=88 (local.get $stencil) (local.get $w7)))
  ;; scatterToGrid's particle loop, per particle on the grid (cell >= 0): first its share weight 1 / rho0 into
  ;; `share` and its three stencils (`particleStencils`), then its density error to its cell (with a full
  ;; neighbourhood) and m w, V w, V w v and V w share to the faces of each axis (`accumulateParticles`). The sums
  ;; start at zero (the caller clears them). A particle's sums need only its own stencils, so the loop runs the
  ;; two parts over blocks of 64 particles. The threads run the first in partitions and the second in ranges of
  ;; faces (parallel/kernels.wat): the same sums in the same order either way.
  (func (export "scatterParticles")
    (param $n i32) (param $grid i32) (param $cell i32) (param $neighbourCount i32) (param $full f64)
    (param $constraint i32) (param $mass i32) (param $material i32) (param $inverseRestDensity i32)
    (param $vx i32) (param $vy i32) (param $vz i32) (param $share i32) (param $kind i32) (param $faceMass i32)
    (param $faceVolume i32) (param $faceFlux i32) (param $faceShare i32) (param $errorSum i32) (param $errorCount i32)
    (param $nx i32) (param $nxy i32) (param $cells i32) (param $stencils i32)
    (local $from i32) (local $to i32)
    (local.set $from (i32.const 0))
    (block $blocksDone (loop $blocks
      (br_if $blocksDone (i32.ge_s (local.get $from) (local.get $n)))
      (local.set $to (select (i32.add (local.get $from) (i32.const 64)) (local.get $n)
        (i32.lt_s (i32.add (local.get $from) (i32.const 64)) (local.get $n))))
      (call $particleStencils (local.get $from) (local.get $to) (local.get $grid) (local.get $cell) (local.get $material)
        (local.get $inverseRestDensity) (local.get $share) (local.get $kind) (local.get $nx) (local.get $nxy)
        (local.get $cells) (local.get $stencils))
      (call $accumulateParticles (local.get $from) (local.get $to) (local.get $cell) (local.get $neighbourCount)
        (local.get $full) (local.get $constraint) (local.get $mass) (local.get $material) (local.get $inverseRestDensity)
        (local.get $vx) (local.get $vy) (local.get $vz) (local.get $share) (local.get $faceMass) (local.get $faceVolume)
        (local.get $faceFlux) (local.get $faceShare) (local.get $errorSum) (local.get $errorCount) (local.get $cells)
        (local.get $stencils))
      (local.set $from (local.get $to))
      (br $blocks))))
  ;; The share weights and stencils of particles from..to-1 (see scatterParticles); each writes only its own.
  (func $particleStencils
    (param $from i32) (param $to i32) (param $grid i32) (param $cell i32) (param $material i32)
    (param $inverseRestDensity i32) (param $share i32) (param $kind i32) (param $nx i32) (param $nxy i32)
    (param $cells i32) (param $stencils i32)
    (local $i i32) (local $a i32) (local $address i32) (local $gx f64) (local $gy f64) (local $gz f64)
    (local.set $i (local.get $from))
    (block $particlesDone (loop $particles
      (br_if $particlesDone (i32.ge_s (local.get $i) (local.get $to)))
      (if (i32.ge_s (i32.load (i32.add (local.get $cell) (i32.shl (local.get $i) (i32.const 2)))) (i32.const 0))
        (then
          ;; 1 / rho0, rho0 = 1 / (1 / rho0): shareWeight(restDensity) of the TypeScript.
          (f64.store (i32.add (local.get $share) (i32.shl (local.get $i) (i32.const 3)))
            (f64.div (f64.const 1) (f64.div (f64.const 1) (f64.load (i32.add (local.get $inverseRestDensity)
              (i32.shl (i32.load16_u (i32.add (local.get $material) (i32.shl (local.get $i) (i32.const 1)))) (i32.const 3)))))))
          (local.set $address (i32.add (local.get $grid) (i32.mul (local.get $i) (i32.const 24))))
          (local.set $gx (f64.load offset=0 (local.get $address)))
          (local.set $gy (f64.load offset=8 (local.get $address)))
          (local.set $gz (f64.load offset=16 (local.get $address)))
          (local.set $a (i32.const 0))
          (block $axesDone (loop $axes
            (br_if $axesDone (i32.ge_u (local.get $a) (i32.const 3)))
            ;; This particle's stencil of axis a, kept for the sums and the gather: stencils + (3 i + a) 96.
            (call $faceStencil (local.get $gx) (local.get $gy) (local.get $gz) (local.get $a) (local.get $nx)
              (local.get $nxy) (i32.add (local.get $kind) (i32.shl (i32.mul (local.get $a) (local.get $cells)) (i32.const 2)))
              (i32.add (local.get $stencils)
                (i32.mul (i32.add (i32.mul (local.get $i) (i32.const 3)) (local.get $a)) (i32.const 96))))
            (local.set $a (i32.add (local.get $a) (i32.const 1)))
            (br $axes)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $particles))))
  ;; The sums of particles from..to-1, in order, from their stencils and share weights (see scatterParticles;
  ;; partitionAccumulateParticles in parallel/kernels.wat is its threads' form).
  (func $accumulateParticles
    (param $from i32) (param $to i32) (param $cell i32) (param $neighbourCount i32) (param $full f64)
    (param $constraint i32) (param $mass i32) (param $material i32) (param $inverseRestDensity i32)
    (param $vx i32) (param $vy i32) (param $vz i32) (param $share i32) (param $faceMass i32)
    (param $faceVolume i32) (param $faceFlux i32) (param $faceShare i32) (param $errorSum i32) (param $errorCount i32)
    (param $cells i32) (param $stencils i32)
    (local $i i32) (local $c i32) (local $slot i32) (local $a i32) (local $k i32) (local $f i32) (local $axis i32) (local $address i32)
    (local $m f64) (local $restVolume f64) (local $shareWeight f64) (local $flux f64) (local $w f64)
    (local.set $i (local.get $from))
    (block $particlesDone (loop $particles
      (br_if $particlesDone (i32.ge_s (local.get $i) (local.get $to)))
      (local.set $c (i32.load (i32.add (local.get $cell) (i32.shl (local.get $i) (i32.const 2)))))
      (if (i32.ge_s (local.get $c) (i32.const 0))
        (then
          (if (f64.ge (f64.convert_i32_s (i32.load (i32.add (local.get $neighbourCount) (i32.shl (local.get $i) (i32.const 2)))))
                (local.get $full))
            (then
              (local.set $address (i32.add (local.get $errorSum) (i32.shl (local.get $c) (i32.const 3))))
              (f64.store (local.get $address) (f64.add (f64.load (local.get $address))
                (f64.load (i32.add (local.get $constraint) (i32.shl (local.get $i) (i32.const 3))))))
              (local.set $address (i32.add (local.get $errorCount) (i32.shl (local.get $c) (i32.const 2))))
              (i32.store (local.get $address) (i32.add (i32.load (local.get $address)) (i32.const 1)))))
          (local.set $m (f64.load (i32.add (local.get $mass) (i32.shl (local.get $i) (i32.const 3)))))
          (local.set $restVolume (f64.mul (local.get $m) (f64.load (i32.add (local.get $inverseRestDensity)
            (i32.shl (i32.load16_u (i32.add (local.get $material) (i32.shl (local.get $i) (i32.const 1)))) (i32.const 3))))))
          (local.set $shareWeight (f64.load (i32.add (local.get $share) (i32.shl (local.get $i) (i32.const 3)))))
          (local.set $a (i32.const 0))
          (block $axesDone (loop $axes
            (br_if $axesDone (i32.ge_u (local.get $a) (i32.const 3)))
            (local.set $axis (i32.mul (local.get $a) (local.get $cells)))
            (local.set $slot (i32.add (local.get $stencils)
              (i32.mul (i32.add (i32.mul (local.get $i) (i32.const 3)) (local.get $a)) (i32.const 96))))
            (local.set $flux (f64.mul (local.get $restVolume) (f64.load (i32.add
              (select (local.get $vx) (select (local.get $vy) (local.get $vz) (i32.eq (local.get $a) (i32.const 1)))
                (i32.eqz (local.get $a)))
              (i32.shl (local.get $i) (i32.const 3))))))
            (local.set $k (i32.const 0))
            (block $facesDone (loop $faces
              (br_if $facesDone (i32.ge_u (local.get $k) (i32.const 8)))
              (local.set $w (f64.load (i32.add (i32.add (local.get $slot) (i32.const 32)) (i32.shl (local.get $k) (i32.const 3)))))
              (if (f64.ne (local.get $w) (f64.const 0))
                (then
                  (local.set $f (i32.shl (i32.add (local.get $axis)
                    (i32.load (i32.add (local.get $slot) (i32.shl (local.get $k) (i32.const 2))))) (i32.const 3)))
                  (local.set $address (i32.add (local.get $faceMass) (local.get $f)))
                  (f64.store (local.get $address) (f64.add (f64.load (local.get $address)) (f64.mul (local.get $m) (local.get $w))))
                  (local.set $address (i32.add (local.get $faceVolume) (local.get $f)))
                  (f64.store (local.get $address) (f64.add (f64.load (local.get $address)) (f64.mul (local.get $restVolume) (local.get $w))))
                  (local.set $address (i32.add (local.get $faceFlux) (local.get $f)))
                  (f64.store (local.get $address) (f64.add (f64.load (local.get $address)) (f64.mul (local.get $flux) (local.get $w))))
                  (local.set $address (i32.add (local.get $faceShare) (local.get $f)))
                  (f64.store (local.get $address) (f64.add (f64.load (local.get $address))
                    (f64.mul (f64.mul (local.get $restVolume) (local.get $w)) (local.get $shareWeight))))))
              (local.set $k (i32.add (local.get $k) (i32.const 1)))
              (br $faces)))
            (local.set $a (i32.add (local.get $a) (i32.const 1)))
            (br $axes)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $particles))))
  ;; gatherFromGrid's particle loop: v += dv, x* += dt dv per axis, dv = share (sum_k w_k t_f_k) - back excess_a.
  (func (export "gatherParticles")
    (param $n i32) (param $grid i32) (param $cell i32) (param $share i32) (param $kind i32) (param $transfer i32)
    (param $vx i32) (param $vy i32) (param $vz i32) (param $px i32) (param $py i32) (param $pz i32)
    (param $back f64) (param $excessX f64) (param $excessY f64) (param $excessZ f64) (param $dt f64)
    (param $nx i32) (param $nxy i32) (param $cells i32) (param $stencils i32) (param $cached i32)
    (call $gatherRange (i32.const 0) (local.get $n) (local.get $grid) (local.get $cell) (local.get $share) (local.get $kind)
      (local.get $transfer) (local.get $vx) (local.get $vy) (local.get $vz) (local.get $px) (local.get $py) (local.get $pz)
      (local.get $back) (local.get $excessX) (local.get $excessY) (local.get $excessZ) (local.get $dt) (local.get $nx)
      (local.get $nxy) (local.get $cells) (local.get $stencils) (local.get $cached)))
  ;; gatherParticles' loop over particles from..to-1 (each changes only its own); the threads run it in partitions.
  (func $gatherRange
    (param $from i32) (param $to i32) (param $grid i32) (param $cell i32) (param $share i32) (param $kind i32) (param $transfer i32)
    (param $vx i32) (param $vy i32) (param $vz i32) (param $px i32) (param $py i32) (param $pz i32)
    (param $back f64) (param $excessX f64) (param $excessY f64) (param $excessZ f64) (param $dt f64)
    (param $nx i32) (param $nxy i32) (param $cells i32) (param $stencils i32) (param $cached i32)
    (local $i i32) (local $a i32) (local $stencil i32) (local $k i32) (local $axis i32) (local $address i32) (local $t i32)
    (local $gx f64) (local $gy f64) (local $gz f64) (local $shareWeight f64) (local $sum f64) (local $dv f64)
    (local.set $i (local.get $from))
    (block $particlesDone (loop $particles
      (br_if $particlesDone (i32.ge_s (local.get $i) (local.get $to)))
      (if (i32.ge_s (i32.load (i32.add (local.get $cell) (i32.shl (local.get $i) (i32.const 2)))) (i32.const 0))
        (then
          (local.set $shareWeight (f64.load (i32.add (local.get $share) (i32.shl (local.get $i) (i32.const 3)))))
          (local.set $address (i32.add (local.get $grid) (i32.mul (local.get $i) (i32.const 24))))
          (local.set $gx (f64.load offset=0 (local.get $address)))
          (local.set $gy (f64.load offset=8 (local.get $address)))
          (local.set $gz (f64.load offset=16 (local.get $address)))
          (local.set $a (i32.const 0))
          (block $axesDone (loop $axes
            (br_if $axesDone (i32.ge_u (local.get $a) (i32.const 3)))
            (local.set $axis (i32.mul (local.get $a) (local.get $cells)))
            ;; The stencil the scatter kept (`cached`: the faces' kinds are the same since), else made again.
            (local.set $stencil (i32.add (local.get $stencils)
              (i32.mul (i32.add (i32.mul (local.get $i) (i32.const 3)) (local.get $a)) (i32.const 96))))
            (if (i32.eqz (local.get $cached))
              (then
                (call $faceStencil (local.get $gx) (local.get $gy) (local.get $gz) (local.get $a) (local.get $nx)
                  (local.get $nxy) (i32.add (local.get $kind) (i32.shl (local.get $axis) (i32.const 2))) (local.get $stencil))))
            (local.set $t (i32.add (local.get $transfer) (i32.shl (local.get $axis) (i32.const 3))))
            ;; w_0 t_0 + w_1 t_1 + ... + w_7 t_7, left to right.
            (local.set $sum (f64.mul (f64.load offset=32 (local.get $stencil))
              (f64.load (i32.add (local.get $t) (i32.shl (i32.load offset=0 (local.get $stencil)) (i32.const 3))))))
            (local.set $k (i32.const 1))
            (block $facesDone (loop $faces
              (br_if $facesDone (i32.ge_u (local.get $k) (i32.const 8)))
              (local.set $sum (f64.add (local.get $sum)
                (f64.mul
                  (f64.load (i32.add (i32.add (local.get $stencil) (i32.const 32)) (i32.shl (local.get $k) (i32.const 3))))
                  (f64.load (i32.add (local.get $t)
                    (i32.shl (i32.load (i32.add (local.get $stencil) (i32.shl (local.get $k) (i32.const 2)))) (i32.const 3)))))))
              (local.set $k (i32.add (local.get $k) (i32.const 1)))
              (br $faces)))
            (local.set $dv (f64.sub (f64.mul (local.get $shareWeight) (local.get $sum))
              (f64.mul (local.get $back)
                (select (local.get $excessX) (select (local.get $excessY) (local.get $excessZ) (i32.eq (local.get $a) (i32.const 1)))
                  (i32.eqz (local.get $a))))))
            (local.set $address (i32.add
              (select (local.get $vx) (select (local.get $vy) (local.get $vz) (i32.eq (local.get $a) (i32.const 1)))
                (i32.eqz (local.get $a)))
              (i32.shl (local.get $i) (i32.const 3))))
            (f64.store (local.get $address) (f64.add (f64.load (local.get $address)) (local.get $dv)))
            (local.set $address (i32.add
              (select (local.get $px) (select (local.get $py) (local.get $pz) (i32.eq (local.get $a) (i32.const 1)))
                (i32.eqz (local.get $a)))
              (i32.shl (local.get $i) (i32.const 3))))
            (f64.store (local.get $address) (f64.add (f64.load (local.get $address)) (f64.mul (local.get $dt) (local.get $dv))))
            (local.set $a (i32.add (local.get $a) (i32.const 1)))
            (br $axes)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $particles))))

  ;; phiOn: phi of cell c where it is fluid (type 1), else 0 (air and solid cells hold no pressure).
  (func $phiOn (param $type i32) (param $phi i32) (param $c i32) (result f64)
    (if (result f64) (i32.eq (i32.load8_u (i32.add (local.get $type) (local.get $c))) (i32.const 1))
      (then (f64.load (i32.add (local.get $phi) (i32.shl (local.get $c) (i32.const 3)))))
      (else (f64.const 0))))

  ;; faceChanges (projection/transfer.ts): each face's velocity change into `faceChange`: on an open face (kind
  ;; -1) -(phi above - phi below) `area` x faceMobility (solve.wat), on a solid face (kind >= 0) its velocity
  ;; minus the fluid's (flux / volume, 0 without volume), else 0. Per-face arrays hold the three axes one after
  ;; the other; cell types uint8, full marks uint8.
  (func (export "faceChanges")
    (param $cells i32) (param $nx i32) (param $nxy i32) (param $area f64) (param $fullVolume f64) (param $single f64)
    (param $faceKind i32) (param $type i32) (param $phi i32) (param $faceMass i32) (param $faceVolume i32)
    (param $faceFlux i32) (param $faceShare i32) (param $full i32) (param $faceVelocity i32) (param $faceChange i32)
    (local $a i32) (local $c i32) (local $stride i32) (local $axis4 i32) (local $axis8 i32) (local $at i32) (local $k i32)
    (local $v f64) (local $d f64)
    (block $axes (loop $axis
      (br_if $axes (i32.ge_s (local.get $a) (i32.const 3)))
      (local.set $stride (select (i32.const 1) (select (local.get $nx) (local.get $nxy) (i32.eq (local.get $a) (i32.const 1)))
        (i32.eqz (local.get $a))))
      (local.set $axis4 (i32.shl (i32.mul (local.get $a) (local.get $cells)) (i32.const 2)))
      (local.set $axis8 (i32.shl (local.get $axis4) (i32.const 1)))
      (local.set $c (i32.const 0))
      (block $done (loop $faces
        (br_if $done (i32.ge_u (local.get $c) (local.get $cells)))
        (local.set $at (i32.add (local.get $axis8) (i32.shl (local.get $c) (i32.const 3))))
        (local.set $k (i32.load (i32.add (i32.add (local.get $faceKind) (local.get $axis4)) (i32.shl (local.get $c) (i32.const 2)))))
        (local.set $d (f64.const 0))
        (if (i32.eq (local.get $k) (i32.const -1))
          (then
            (local.set $d (f64.mul (f64.mul
              (f64.neg (f64.sub (call $phiOn (local.get $type) (local.get $phi) (local.get $c))
                (call $phiOn (local.get $type) (local.get $phi) (i32.sub (local.get $c) (local.get $stride)))))
              (local.get $area))
              (call $faceMobility
                (i32.add (local.get $faceVolume) (local.get $axis8)) (i32.add (local.get $faceShare) (local.get $axis8))
                (i32.add (local.get $faceMass) (local.get $axis8)) (local.get $full) (local.get $c) (local.get $stride)
                (local.get $fullVolume) (local.get $single)))))
          (else (if (i32.ge_s (local.get $k) (i32.const 0))
            (then
              (local.set $v (f64.load (i32.add (local.get $faceVolume) (local.get $at))))
              (local.set $d (f64.sub (f64.load (i32.add (local.get $faceVelocity) (local.get $at)))
                (if (result f64) (f64.gt (local.get $v) (f64.const 0))
                  (then (f64.div (f64.load (i32.add (local.get $faceFlux) (local.get $at))) (local.get $v)))
                  (else (f64.const 0)))))))))
        (f64.store (i32.add (local.get $faceChange) (local.get $at)) (local.get $d))
        (local.set $c (i32.add (local.get $c) (i32.const 1)))
        (br $faces)))
      (local.set $a (i32.add (local.get $a) (i32.const 1)))
      (br $axis))))

  ;; faceTransfers: the faces' part of gatherFromGrid (projection/transfer.ts): each face's change per unit of share
  ;; weight into `faceTransfer` (du_f V_f / S_f where du_f is not 0 and S_f > 0, else 0), and per axis into `excess`
  ;; (3 float64) excessMomentum's sum over the open faces between two full cells of M_f du_f (du_f V_f^2 / S_f, 0
  ;; without share) + `area` (phi above - phi below), in the TypeScript's order.
  (func (export "faceTransfers")
    (param $cells i32) (param $nx i32) (param $nxy i32) (param $area f64) (param $faceKind i32) (param $type i32)
    (param $phi i32) (param $faceVolume i32) (param $faceShare i32) (param $full i32) (param $faceChange i32)
    (param $faceTransfer i32) (param $excess i32)
    (local $a i32) (local $c i32) (local $stride i32) (local $axis4 i32) (local $axis8 i32) (local $at i32)
    (local $d f64) (local $s f64) (local $v f64) (local $sum f64) (local $impulse f64) (local $count i32)
    (local.set $count (i32.mul (local.get $cells) (i32.const 3)))
    (block $done (loop $faces
      (br_if $done (i32.ge_u (local.get $c) (local.get $count)))
      (local.set $at (i32.shl (local.get $c) (i32.const 3)))
      (local.set $d (f64.load (i32.add (local.get $faceChange) (local.get $at))))
      (local.set $s (f64.load (i32.add (local.get $faceShare) (local.get $at))))
      (f64.store (i32.add (local.get $faceTransfer) (local.get $at))
        (if (result f64) (i32.and (f64.ne (local.get $d) (f64.const 0)) (f64.gt (local.get $s) (f64.const 0)))
          (then (f64.div (f64.mul (local.get $d) (f64.load (i32.add (local.get $faceVolume) (local.get $at)))) (local.get $s)))
          (else (f64.const 0))))
      (local.set $c (i32.add (local.get $c) (i32.const 1)))
      (br $faces)))
    (block $axes (loop $axis
      (br_if $axes (i32.ge_s (local.get $a) (i32.const 3)))
      (local.set $stride (select (i32.const 1) (select (local.get $nx) (local.get $nxy) (i32.eq (local.get $a) (i32.const 1)))
        (i32.eqz (local.get $a))))
      (local.set $axis4 (i32.shl (i32.mul (local.get $a) (local.get $cells)) (i32.const 2)))
      (local.set $axis8 (i32.shl (local.get $axis4) (i32.const 1)))
      (local.set $sum (f64.const 0))
      (local.set $c (local.get $stride))
      (block $summed (loop $sums
        (br_if $summed (i32.ge_u (local.get $c) (local.get $cells)))
        (if (i32.and (i32.and
              (i32.eq (i32.load (i32.add (i32.add (local.get $faceKind) (local.get $axis4)) (i32.shl (local.get $c) (i32.const 2))))
                (i32.const -1))
              (i32.eq (i32.load8_u (i32.add (local.get $full) (local.get $c))) (i32.const 1)))
              (i32.eq (i32.load8_u (i32.add (local.get $full) (i32.sub (local.get $c) (local.get $stride)))) (i32.const 1)))
          (then
            (local.set $at (i32.add (local.get $axis8) (i32.shl (local.get $c) (i32.const 3))))
            (local.set $s (f64.load (i32.add (local.get $faceShare) (local.get $at))))
            (local.set $v (f64.load (i32.add (local.get $faceVolume) (local.get $at))))
            (local.set $impulse (if (result f64) (f64.gt (local.get $s) (f64.const 0))
              (then (f64.div (f64.mul (f64.mul (f64.load (i32.add (local.get $faceChange) (local.get $at))) (local.get $v))
                (local.get $v)) (local.get $s)))
              (else (f64.const 0))))
            (local.set $sum (f64.add (local.get $sum) (f64.add (local.get $impulse)
              (f64.mul (local.get $area) (f64.sub (call $phiOn (local.get $type) (local.get $phi) (local.get $c))
                (call $phiOn (local.get $type) (local.get $phi) (i32.sub (local.get $c) (local.get $stride))))))))))
        (local.set $c (i32.add (local.get $c) (i32.const 1)))
        (br $sums)))
      (f64.store (i32.add (local.get $excess) (i32.shl (local.get $a) (i32.const 3))) (local.get $sum))
      (local.set $a (i32.add (local.get $a) (i32.const 1)))
      (br $axis))))
