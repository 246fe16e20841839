;; The coarse projection's pressure solve in WebAssembly (projection/wasm.ts runs it; docs/performance.md,
;; "WebAssembly"): `assemblePressureSystem` mirrors faceCoefficients and assembleRightHandSide (with faceMobility of
;; projection/transfer.ts), `conjugateGradients` conjugateGradients and applyPressureMatrix (projection/solve.ts),
;; the same float64 operations in the same order, so phi, the iterations and the residual are bit-identical to
;; the TypeScript's (tests/wasm.test.ts compares whole runs). Arrays are byte offsets into the module's memory:
;; float64 per grid cell (A's diagonal, the three axes' face coefficients one after the other, phi, b and the
;; solver's vectors) and the int32 fluid cells; the assembly also reads the faces' int32 kinds and float64 sums
;; (the three axes one after the other), the cells' uint8 types and full marks and int32 error counts.
;; scripts/assembleWasm.mjs puts these functions into the CPU module.

  ;; applyPressureMatrix: out = A x over the `fluid` fluid cells (x is zero in every other cell). `nx` and `nxy`
  ;; are the grid's strides in bytes; `ky` and `kz` the y and z coefficients.
  (func $applyPressureMatrix
    (param $fluid i32) (param $fluidCells i32) (param $diagonal i32) (param $kx i32) (param $ky i32) (param $kz i32)
    (param $x i32) (param $out i32) (param $nx i32) (param $nxy i32)
    (local $q i32) (local $c i32)
    (block $done (loop $cells
      (br_if $done (i32.ge_u (local.get $q) (local.get $fluid)))
      (local.set $c (i32.shl (i32.load (i32.add (local.get $fluidCells) (i32.shl (local.get $q) (i32.const 2)))) (i32.const 3)))
      (f64.store (i32.add (local.get $out) (local.get $c))
        (f64.sub (f64.sub (f64.sub (f64.sub (f64.sub (f64.sub
          (f64.mul (f64.load (i32.add (local.get $diagonal) (local.get $c))) (f64.load (i32.add (local.get $x) (local.get $c))))
          (f64.mul (f64.load offset=8 (i32.add (local.get $kx) (local.get $c))) (f64.load offset=8 (i32.add (local.get $x) (local.get $c)))))
          (f64.mul (f64.load (i32.add (local.get $kx) (local.get $c))) (f64.load (i32.sub (i32.add (local.get $x) (local.get $c)) (i32.const 8)))))
          (f64.mul (f64.load (i32.add (i32.add (local.get $ky) (local.get $c)) (local.get $nx)))
            (f64.load (i32.add (i32.add (local.get $x) (local.get $c)) (local.get $nx)))))
          (f64.mul (f64.load (i32.add (local.get $ky) (local.get $c)))
            (f64.load (i32.sub (i32.add (local.get $x) (local.get $c)) (local.get $nx)))))
          (f64.mul (f64.load (i32.add (i32.add (local.get $kz) (local.get $c)) (local.get $nxy)))
            (f64.load (i32.add (i32.add (local.get $x) (local.get $c)) (local.get $nxy)))))
          (f64.mul (f64.load (i32.add (local.get $kz) (local.get $c)))
            (f64.load (i32.sub (i32.add (local.get $x) (local.get $c)) (local.get $nxy))))))
      (local.set $q (i32.add (local.get $q) (i32.const 1)))
      (br $cells))))

  ;; conjugateGradients: Jacobi-preconditioned conjugate gradients from the warm-started phi until |r| is at most
  ;; `tolerance` or `maxIterations` are done. `coefficient` holds kx, ky, kz for `cells` cells each; `direction`
  ;; is cleared over `cells` first. Writes r . r to `out` and returns the iterations.
  (func (export "conjugateGradients")
    (param $fluid i32) (param $fluidCells i32) (param $cells i32) (param $diagonal i32) (param $coefficient i32)
    (param $phi i32) (param $rightHandSide i32) (param $residual i32) (param $preconditioned i32)
    (param $direction i32) (param $product i32) (param $nx i32) (param $nxy i32) (param $tolerance f64)
    (param $maxIterations i32) (param $out i32) (result i32)
    (local $q i32) (local $c i32) (local $iteration i32) (local $kx i32) (local $ky i32) (local $kz i32)
    (local $r f64) (local $z f64) (local $d f64) (local $rz f64) (local $rr f64) (local $pAp f64) (local $alpha f64)
    (local $rzNext f64) (local $beta f64)
    (local.set $kx (local.get $coefficient))
    (local.set $ky (i32.add (local.get $kx) (i32.shl (local.get $cells) (i32.const 3))))
    (local.set $kz (i32.add (local.get $ky) (i32.shl (local.get $cells) (i32.const 3))))
    (local.set $nx (i32.shl (local.get $nx) (i32.const 3)))
    (local.set $nxy (i32.shl (local.get $nxy) (i32.const 3)))
    (memory.fill (local.get $direction) (i32.const 0) (i32.shl (local.get $cells) (i32.const 3)))
    (call $applyPressureMatrix (local.get $fluid) (local.get $fluidCells) (local.get $diagonal) (local.get $kx)
      (local.get $ky) (local.get $kz) (local.get $phi) (local.get $product) (local.get $nx) (local.get $nxy))
    (local.set $q (i32.const 0))
    (block $startDone (loop $start
      (br_if $startDone (i32.ge_u (local.get $q) (local.get $fluid)))
      (local.set $c (i32.shl (i32.load (i32.add (local.get $fluidCells) (i32.shl (local.get $q) (i32.const 2)))) (i32.const 3)))
      (local.set $r (f64.sub (f64.load (i32.add (local.get $rightHandSide) (local.get $c)))
        (f64.load (i32.add (local.get $product) (local.get $c)))))
      (f64.store (i32.add (local.get $residual) (local.get $c)) (local.get $r))
      (local.set $d (f64.load (i32.add (local.get $diagonal) (local.get $c))))
      (local.set $z (if (result f64) (f64.gt (local.get $d) (f64.const 0))
        (then (f64.div (local.get $r) (local.get $d))) (else (f64.const 0))))
      (f64.store (i32.add (local.get $preconditioned) (local.get $c)) (local.get $z))
      (f64.store (i32.add (local.get $direction) (local.get $c)) (local.get $z))
      (local.set $rz (f64.add (local.get $rz) (f64.mul (local.get $r) (local.get $z))))
      (local.set $rr (f64.add (local.get $rr) (f64.mul (local.get $r) (local.get $r))))
      (local.set $q (i32.add (local.get $q) (i32.const 1)))
      (br $start)))
    (block $solved (loop $iterations
      (br_if $solved (i32.eqz (f64.gt (f64.sqrt (local.get $rr)) (local.get $tolerance))))
      (br_if $solved (i32.ge_s (local.get $iteration) (local.get $maxIterations)))
      (call $applyPressureMatrix (local.get $fluid) (local.get $fluidCells) (local.get $diagonal) (local.get $kx)
        (local.get $ky) (local.get $kz) (local.get $direction) (local.get $product) (local.get $nx) (local.get $nxy))
      (local.set $pAp (f64.const 0))
      (local.set $q (i32.const 0))
      (block $dotDone (loop $dot
        (br_if $dotDone (i32.ge_u (local.get $q) (local.get $fluid)))
        (local.set $c (i32.shl (i32.load (i32.add (local.get $fluidCells) (i32.shl (local.get $q) (i32.const 2)))) (i32.const 3)))
        (local.set $pAp (f64.add (local.get $pAp) (f64.mul (f64.load (i32.add (local.get $direction) (local.get $c)))
          (f64.load (i32.add (local.get $product) (local.get $c))))))
        (local.set $q (i32.add (local.get $q) (i32.const 1)))
        (br $dot)))
      (br_if $solved (i32.eqz (f64.gt (local.get $pAp) (f64.const 0))))
      (local.set $alpha (f64.div (local.get $rz) (local.get $pAp)))
      ;; Not finite (NaN or infinite): alpha - alpha is NaN.
      (br_if $solved (f64.ne (f64.sub (local.get $alpha) (local.get $alpha)) (f64.const 0)))
      (local.set $rzNext (f64.const 0))
      (local.set $rr (f64.const 0))
      (local.set $q (i32.const 0))
      (block $updateDone (loop $update
        (br_if $updateDone (i32.ge_u (local.get $q) (local.get $fluid)))
        (local.set $c (i32.shl (i32.load (i32.add (local.get $fluidCells) (i32.shl (local.get $q) (i32.const 2)))) (i32.const 3)))
        (f64.store (i32.add (local.get $phi) (local.get $c)) (f64.add (f64.load (i32.add (local.get $phi) (local.get $c)))
          (f64.mul (local.get $alpha) (f64.load (i32.add (local.get $direction) (local.get $c))))))
        (local.set $r (f64.sub (f64.load (i32.add (local.get $residual) (local.get $c)))
          (f64.mul (local.get $alpha) (f64.load (i32.add (local.get $product) (local.get $c))))))
        (f64.store (i32.add (local.get $residual) (local.get $c)) (local.get $r))
        (local.set $d (f64.load (i32.add (local.get $diagonal) (local.get $c))))
        (local.set $z (if (result f64) (f64.gt (local.get $d) (f64.const 0))
          (then (f64.div (local.get $r) (local.get $d))) (else (f64.const 0))))
        (f64.store (i32.add (local.get $preconditioned) (local.get $c)) (local.get $z))
        (local.set $rzNext (f64.add (local.get $rzNext) (f64.mul (local.get $r) (local.get $z))))
        (local.set $rr (f64.add (local.get $rr) (f64.mul (local.get $r) (local.get $r))))
        (local.set $q (i32.add (local.get $q) (i32.const 1)))
        (br $update)))
      (local.set $beta (if (result f64) (f64.gt (local.get $rz) (f64.const 0))
        (then (f64.div (local.get $rzNext) (local.get $rz))) (else (f64.const 0))))
      (local.set $rz (local.get $rzNext))
      (local.set $q (i32.const 0))
      (block $directionDone (loop $directions
        (br_if $directionDone (i32.ge_u (local.get $q) (local.get $fluid)))
        (local.set $c (i32.shl (i32.load (i32.add (local.get $fluidCells) (i32.shl (local.get $q) (i32.const 2)))) (i32.const 3)))
        (f64.store (i32.add (local.get $direction) (local.get $c))
          (f64.add (f64.load (i32.add (local.get $preconditioned) (local.get $c)))
            (f64.mul (local.get $beta) (f64.load (i32.add (local.get $direction) (local.get $c))))))
        (local.set $q (i32.add (local.get $q) (i32.const 1)))
        (br $directions)))
      (local.set $iteration (i32.add (local.get $iteration) (i32.const 1)))
      (br $iterations)))
    (f64.store (local.get $out) (local.get $rr))
    (local.get $iteration))

  ;; faceMobility (projection/transfer.ts): how much face c's velocity changes per unit of pressure impulse, from
  ;; the face's sums of its axis (`volume`, `share`, `mass`: the axis's arrays) and the cells' full marks (uint8):
  ;; 1 / (rho0 V_full) between two full cells on a face of one rest density (M_f S_f <= V_f^2 `single`), else
  ;; S_f / V_f^2; 0 on a face without volume. `stride`: the cells between c and the cell below the face.
  (func $faceMobility (param $volume i32) (param $share i32) (param $mass i32) (param $full i32) (param $c i32)
    (param $stride i32) (param $fullVolume f64) (param $single f64) (result f64)
    (local $v f64) (local $s f64) (local $below i32) (local $isFull i32)
    (local.set $v (f64.load (i32.add (local.get $volume) (i32.shl (local.get $c) (i32.const 3)))))
    (if (i32.eqz (f64.gt (local.get $v) (f64.const 0))) (then (return (f64.const 0))))
    (local.set $below (i32.sub (local.get $c) (local.get $stride)))
    (local.set $s (f64.load (i32.add (local.get $share) (i32.shl (local.get $c) (i32.const 3)))))
    (if (i32.and (i32.eq (i32.load8_u (i32.add (local.get $full) (local.get $c))) (i32.const 1))
          (i32.ge_s (local.get $below) (i32.const 0)))
      (then
        (local.set $isFull (i32.and
          (i32.eq (i32.load8_u (i32.add (local.get $full) (local.get $below))) (i32.const 1))
          (f64.le (f64.mul (f64.load (i32.add (local.get $mass) (i32.shl (local.get $c) (i32.const 3)))) (local.get $s))
            (f64.mul (f64.mul (local.get $v) (local.get $v)) (local.get $single)))))))
    (f64.div (local.get $s) (f64.mul (local.get $v) (select (local.get $fullVolume) (local.get $v) (local.get $isFull)))))

  ;; assemblePressureSystem: faceCoefficients then assembleRightHandSide (projection/solve.ts). Each open face
  ;; (kind -1) with less mass than `closedMass` is closed (-2), the others get their velocity (flux / volume, in
  ;; `faceVelocity`, whose other faces keep theirs) and A's coefficient `area` x faceMobility (0 on every other face);
  ;; then each fluid cell (type 1) is listed in `fluidCells`, its phi kept where finite (else 0; 0 in every other
  ;; cell), b = `relaxation` x its mean density error - the divergence of the faces' velocities (closed faces count
  ;; as zero) and A's diagonal. Per-face arrays hold the three axes one after the other; returns the fluid cells.
  (func (export "assemblePressureSystem")
    (param $cells i32) (param $nx i32) (param $nxy i32) (param $area f64) (param $closedMass f64)
    (param $fullVolume f64) (param $single f64) (param $relaxation f64) (param $faceKind i32) (param $faceMass i32)
    (param $faceVolume i32) (param $faceFlux i32) (param $faceShare i32) (param $full i32) (param $type i32)
    (param $errorSum i32) (param $errorCount i32) (param $faceVelocity i32) (param $coefficient i32)
    (param $diagonal i32) (param $phi i32) (param $rightHandSide i32) (param $fluidCells i32) (result i32)
    (local $a i32) (local $c i32) (local $stride i32) (local $axis4 i32) (local $axis8 i32) (local $at i32)
    (local $fluid i32) (local $divergence f64) (local $upper i32) (local $p f64) (local $count i32) (local $error f64)
    (local $kx i32) (local $ky i32) (local $kz i32)
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
        (f64.store (i32.add (local.get $coefficient) (local.get $at)) (f64.const 0))
        (if (i32.eq (i32.load (i32.add (i32.add (local.get $faceKind) (local.get $axis4)) (i32.shl (local.get $c) (i32.const 2))))
              (i32.const -1))
          (then
            (if (f64.lt (f64.load (i32.add (local.get $faceMass) (local.get $at))) (local.get $closedMass))
              (then (i32.store (i32.add (i32.add (local.get $faceKind) (local.get $axis4)) (i32.shl (local.get $c) (i32.const 2)))
                (i32.const -2)))
              (else
                (f64.store (i32.add (local.get $faceVelocity) (local.get $at))
                  (f64.div (f64.load (i32.add (local.get $faceFlux) (local.get $at)))
                    (f64.load (i32.add (local.get $faceVolume) (local.get $at)))))
                (f64.store (i32.add (local.get $coefficient) (local.get $at))
                  (f64.mul (local.get $area) (call $faceMobility
                    (i32.add (local.get $faceVolume) (local.get $axis8)) (i32.add (local.get $faceShare) (local.get $axis8))
                    (i32.add (local.get $faceMass) (local.get $axis8)) (local.get $full) (local.get $c) (local.get $stride)
                    (local.get $fullVolume) (local.get $single))))))))
        (local.set $c (i32.add (local.get $c) (i32.const 1)))
        (br $faces)))
      (local.set $a (i32.add (local.get $a) (i32.const 1)))
      (br $axis)))
    (local.set $kx (local.get $coefficient))
    (local.set $ky (i32.add (local.get $kx) (i32.shl (local.get $cells) (i32.const 3))))
    (local.set $kz (i32.add (local.get $ky) (i32.shl (local.get $cells) (i32.const 3))))
    (local.set $c (i32.const 0))
    (block $assembled (loop $assemble
      (br_if $assembled (i32.ge_u (local.get $c) (local.get $cells)))
      (local.set $at (i32.shl (local.get $c) (i32.const 3)))
      (block $next
        (if (i32.ne (i32.load8_u (i32.add (local.get $type) (local.get $c))) (i32.const 1))
          (then
            (f64.store (i32.add (local.get $phi) (local.get $at)) (f64.const 0))
            (br $next)))
        (i32.store (i32.add (local.get $fluidCells) (i32.shl (local.get $fluid) (i32.const 2))) (local.get $c))
        (local.set $fluid (i32.add (local.get $fluid) (i32.const 1)))
        ;; A warm start left non-finite (p - p is NaN) starts cold.
        (local.set $p (f64.load (i32.add (local.get $phi) (local.get $at))))
        (if (f64.ne (f64.sub (local.get $p) (local.get $p)) (f64.const 0))
          (then (f64.store (i32.add (local.get $phi) (local.get $at)) (f64.const 0))))
        (local.set $divergence (f64.const 0))
        (local.set $a (i32.const 0))
        (block $axesDone (loop $axes
          (br_if $axesDone (i32.ge_s (local.get $a) (i32.const 3)))
          (local.set $stride (select (i32.const 1) (select (local.get $nx) (local.get $nxy) (i32.eq (local.get $a) (i32.const 1)))
            (i32.eqz (local.get $a))))
          (local.set $axis4 (i32.shl (i32.mul (local.get $a) (local.get $cells)) (i32.const 2)))
          (local.set $axis8 (i32.shl (local.get $axis4) (i32.const 1)))
          (local.set $upper (i32.add (local.get $c) (local.get $stride)))
          (if (i32.ne (i32.load (i32.add (i32.add (local.get $faceKind) (local.get $axis4)) (i32.shl (local.get $upper) (i32.const 2))))
                (i32.const -2))
            (then (local.set $divergence (f64.add (local.get $divergence)
              (f64.load (i32.add (i32.add (local.get $faceVelocity) (local.get $axis8)) (i32.shl (local.get $upper) (i32.const 3))))))))
          (if (i32.ne (i32.load (i32.add (i32.add (local.get $faceKind) (local.get $axis4)) (i32.shl (local.get $c) (i32.const 2))))
                (i32.const -2))
            (then (local.set $divergence (f64.sub (local.get $divergence)
              (f64.load (i32.add (i32.add (local.get $faceVelocity) (local.get $axis8)) (local.get $at)))))))
          (local.set $a (i32.add (local.get $a) (i32.const 1)))
          (br $axes)))
        (local.set $count (i32.load (i32.add (local.get $errorCount) (i32.shl (local.get $c) (i32.const 2)))))
        (local.set $error (if (result f64) (i32.gt_s (local.get $count) (i32.const 0))
          (then (f64.div (f64.load (i32.add (local.get $errorSum) (local.get $at))) (f64.convert_i32_s (local.get $count))))
          (else (f64.const 0))))
        (f64.store (i32.add (local.get $rightHandSide) (local.get $at))
          (f64.sub (f64.mul (local.get $relaxation) (local.get $error)) (local.get $divergence)))
        (f64.store (i32.add (local.get $diagonal) (local.get $at))
          (f64.add (f64.add (f64.add (f64.add (f64.add
            (f64.load (i32.add (local.get $kx) (local.get $at)))
            (f64.load offset=8 (i32.add (local.get $kx) (local.get $at))))
            (f64.load (i32.add (local.get $ky) (local.get $at))))
            (f64.load (i32.add (i32.add (local.get $ky) (local.get $at)) (i32.shl (local.get $nx) (i32.const 3)))))
            (f64.load (i32.add (local.get $kz) (local.get $at))))
            (f64.load (i32.add (i32.add (local.get $kz) (local.get $at)) (i32.shl (local.get $nxy) (i32.const 3)))))))
      (local.set $c (i32.add (local.get $c) (i32.const 1)))
      (br $assemble)))
    (local.get $fluid))
