;; The coarse projection's particle transfers on the CPU in WebAssembly (projection/wasm.ts runs them; docs/
;; performance.md, "WebAssembly"): `scatterParticles` mirrors the particle loop of scatterToGrid and
;; `gatherParticles` that of gatherFromGrid (projection/transfer.ts), with faceStencil's weights: the same float64
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
    (local $base i32) (local $k i32) (local $total f64) (local $scale f64) (local $address i32) (local $number i32)
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
    (i32.store offset=0 (local.get $stencil) (i32.mul (local.get $number) (local.get $base)))
    (i32.store offset=4 (local.get $stencil) (i32.mul (local.get $number) (i32.add (local.get $base) (i32.const 1))))
    (i32.store offset=8 (local.get $stencil) (i32.mul (local.get $number) (i32.add (local.get $base) (local.get $nx))))
    (i32.store offset=12 (local.get $stencil)
      (i32.mul (local.get $number) (i32.add (i32.add (local.get $base) (local.get $nx)) (i32.const 1))))
    (i32.store offset=16 (local.get $stencil) (i32.mul (local.get $number) (i32.add (local.get $base) (local.get $nxy))))
    (i32.store offset=20 (local.get $stencil)
      (i32.mul (local.get $number) (i32.add (i32.add (local.get $base) (local.get $nxy)) (i32.const 1))))
    (i32.store offset=24 (local.get $stencil)
      (i32.mul (local.get $number) (i32.add (i32.add (local.get $base) (local.get $nxy)) (local.get $nx))))
    (i32.store offset=28 (local.get $stencil)
      (i32.mul (local.get $number) (i32.add (i32.add (i32.add (local.get $base) (local.get $nxy)) (local.get $nx)) (i32.const 1))))
    (f64.store offset=32 (local.get $stencil) (f64.mul (f64.mul (local.get $ux) (local.get $uy)) (local.get $uz)))
    (f64.store offset=40 (local.get $stencil) (f64.mul (f64.mul (local.get $tx) (local.get $uy)) (local.get $uz)))
    (f64.store offset=48 (local.get $stencil) (f64.mul (f64.mul (local.get $ux) (local.get $ty)) (local.get $uz)))
    (f64.store offset=56 (local.get $stencil) (f64.mul (f64.mul (local.get $tx) (local.get $ty)) (local.get $uz)))
    (f64.store offset=64 (local.get $stencil) (f64.mul (f64.mul (local.get $ux) (local.get $uy)) (local.get $tz)))
    (f64.store offset=72 (local.get $stencil) (f64.mul (f64.mul (local.get $tx) (local.get $uy)) (local.get $tz)))
    (f64.store offset=80 (local.get $stencil) (f64.mul (f64.mul (local.get $ux) (local.get $ty)) (local.get $tz)))
    (f64.store offset=88 (local.get $stencil) (f64.mul (f64.mul (local.get $tx) (local.get $ty)) (local.get $tz)))
    ;; Dead faces weigh nothing; the others are summed in order.
    (local.set $total (f64.const 0))
    (local.set $k (i32.const 0))
    (block $sumDone (loop $sum
      (br_if $sumDone (i32.ge_u (local.get $k) (i32.const 8)))
      (local.set $address (i32.add (i32.add (local.get $stencil) (i32.const 32)) (i32.shl (local.get $k) (i32.const 3))))
      (if (i32.eq
            (i32.load (i32.add (local.get $kind)
              (i32.shl (i32.load (i32.add (local.get $stencil) (i32.shl (local.get $k) (i32.const 2)))) (i32.const 2))))
            (i32.const -3))
        (then (f64.store (local.get $address) (f64.const 0)))
        (else (local.set $total (f64.add (local.get $total) (f64.load (local.get $address))))))
      (local.set $k (i32.add (local.get $k) (i32.const 1)))
      (br $sum)))
    (if (f64.eq (local.get $total) (f64.const 1)) (then (return)))
    (local.set $scale (select (f64.div (f64.const 1) (local.get $total)) (f64.const 0) (f64.gt (local.get $total) (f64.const 0))))
    (local.set $k (i32.const 0))
    (block $scaleDone (loop $scaleAll
      (br_if $scaleDone (i32.ge_u (local.get $k) (i32.const 8)))
      (local.set $address (i32.add (i32.add (local.get $stencil) (i32.const 32)) (i32.shl (local.get $k) (i32.const 3))))
      (f64.store (local.get $address) (f64.mul (f64.load (local.get $address)) (local.get $scale)))
      (local.set $k (i32.add (local.get $k) (i32.const 1)))
      (br $scaleAll))))
  ;; scatterToGrid's particle loop: density errors of full neighbourhoods to their cells; m w, V w, V w v and
  ;; V w share to the faces of each axis; each particle's share weight 1 / rho0 into `share`. The sums start at
  ;; zero (the caller clears them).
  (func (export "scatterParticles")
    (param $n i32) (param $grid i32) (param $cell i32) (param $neighbourCount i32) (param $full f64)
    (param $constraint i32) (param $mass i32) (param $material i32) (param $inverseRestDensity i32)
    (param $vx i32) (param $vy i32) (param $vz i32) (param $share i32) (param $kind i32) (param $faceMass i32)
    (param $faceVolume i32) (param $faceFlux i32) (param $faceShare i32) (param $errorSum i32) (param $errorCount i32)
    (param $nx i32) (param $nxy i32) (param $cells i32) (param $stencils i32)
    (local $i i32) (local $c i32) (local $slot i32) (local $a i32) (local $k i32) (local $f i32) (local $axis i32) (local $address i32)
    (local $m f64) (local $inverse f64) (local $restDensity f64) (local $restVolume f64) (local $shareWeight f64)
    (local $flux f64) (local $w f64) (local $gx f64) (local $gy f64) (local $gz f64)
    (local.set $i (i32.const 0))
    (block $particlesDone (loop $particles
      (br_if $particlesDone (i32.ge_u (local.get $i) (local.get $n)))
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
          (local.set $inverse (f64.load (i32.add (local.get $inverseRestDensity)
            (i32.shl (i32.load16_u (i32.add (local.get $material) (i32.shl (local.get $i) (i32.const 1)))) (i32.const 3)))))
          (local.set $restDensity (f64.div (f64.const 1) (local.get $inverse)))
          (local.set $restVolume (f64.mul (local.get $m) (local.get $inverse)))
          (local.set $shareWeight (f64.div (f64.const 1) (local.get $restDensity)))
          (f64.store (i32.add (local.get $share) (i32.shl (local.get $i) (i32.const 3))) (local.get $shareWeight))
          (local.set $address (i32.add (local.get $grid) (i32.mul (local.get $i) (i32.const 24))))
          (local.set $gx (f64.load offset=0 (local.get $address)))
          (local.set $gy (f64.load offset=8 (local.get $address)))
          (local.set $gz (f64.load offset=16 (local.get $address)))
          (local.set $a (i32.const 0))
          (block $axesDone (loop $axes
            (br_if $axesDone (i32.ge_u (local.get $a) (i32.const 3)))
            (local.set $axis (i32.mul (local.get $a) (local.get $cells)))
            ;; This particle's stencil of axis a, kept for the gather: 96 bytes at stencils + (3 i + a) 96.
            (local.set $slot (i32.add (local.get $stencils)
              (i32.mul (i32.add (i32.mul (local.get $i) (i32.const 3)) (local.get $a)) (i32.const 96))))
            (call $faceStencil (local.get $gx) (local.get $gy) (local.get $gz) (local.get $a) (local.get $nx)
              (local.get $nxy) (i32.add (local.get $kind) (i32.shl (local.get $axis) (i32.const 2))) (local.get $slot))
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
    (local $i i32) (local $a i32) (local $stencil i32) (local $k i32) (local $axis i32) (local $address i32) (local $t i32)
    (local $gx f64) (local $gy f64) (local $gz f64) (local $shareWeight f64) (local $sum f64) (local $dv f64)
    (local.set $i (i32.const 0))
    (block $particlesDone (loop $particles
      (br_if $particlesDone (i32.ge_u (local.get $i) (local.get $n)))
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
