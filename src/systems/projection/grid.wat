;; The coarse projection's grid passes on the CPU in WebAssembly (projection/wasm.ts runs them; docs/
;; performance.md, "WebAssembly"): `markFluidCells`, `erodeSurfaceCells`, `markSolvedParticles` and
;; `classifyFaces` mirror the functions of the same names in projection/grid.ts, the same float64 operations in the
;; same order, so the cells, faces and particles they mark are the TypeScript's bit for bit (tests/wasm.test.ts
;; compares whole runs). The colliders' distances (classifyCells) and the solid faces' velocities stay in
;; TypeScript: a collider may have any shape. Arrays are byte offsets into the module's memory: per particle
;; float64 positions, masses, grid coordinates (3 each) and marks, uint16 materials, int32 cells; per cell uint8
;; types and flags, int32 bodies and nearest colliders, float64 volumes and distances; per face the three axes'
;; arrays one after the other (`cells` entries each): float64 normals (the cells' normals' x, y and z), int32
;; kinds. Cell types are CellType's (air 0, fluid 1, solid 2), face kinds FaceKind's (dead -3, open -1, a solid
;; face's collider slot). scripts/assembleWasm.mjs puts these functions into the CPU module, whose memory
;; wasm/state.ts lays out.

  ;; markFluidCells: each particle's grid coordinates (its predicted position in cells of 1 / `inverse` from the
  ;; grid's origin, `ox` `oy` `oz` in cells) and cell, -1 where its stencil leaves the grid (the cells
  ;; `nx` x `ny` x `nz` but the outer layer), and 0 for a NaN coordinate, as the TypeScript's Int32Array stores
  ;; its NaN cell, which then adds nothing; the cells' rest volumes (mass / rest density), and each cell's type:
  ;; fluid where its volume is at least `half`, else air.
  (func (export "markFluidCells")
    (param $n i32) (param $predictedX i32) (param $predictedY i32) (param $predictedZ i32) (param $mass i32)
    (param $material i32) (param $inverseRestDensity i32) (param $inverse f64) (param $ox f64) (param $oy f64)
    (param $oz f64) (param $nx i32) (param $ny i32) (param $nz i32) (param $cells i32) (param $half f64)
    (param $particleGrid i32) (param $particleCell i32) (param $cellVolume i32) (param $type i32)
    (local $i i32) (local $gx f64) (local $gy f64) (local $gz f64) (local $cx f64) (local $cy f64) (local $cz f64)
    (local $cell f64) (local $at i32) (local $lastX f64) (local $lastY f64) (local $lastZ f64) (local $c i32)
    (memory.fill (local.get $cellVolume) (i32.const 0) (i32.shl (local.get $cells) (i32.const 3)))
    (local.set $lastX (f64.convert_i32_s (i32.sub (local.get $nx) (i32.const 2))))
    (local.set $lastY (f64.convert_i32_s (i32.sub (local.get $ny) (i32.const 2))))
    (local.set $lastZ (f64.convert_i32_s (i32.sub (local.get $nz) (i32.const 2))))
    (block $done (loop $particles
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $at (i32.shl (local.get $i) (i32.const 3)))
      (local.set $gx (f64.sub (f64.mul (f64.load (i32.add (local.get $predictedX) (local.get $at))) (local.get $inverse)) (local.get $ox)))
      (local.set $gy (f64.sub (f64.mul (f64.load (i32.add (local.get $predictedY) (local.get $at))) (local.get $inverse)) (local.get $oy)))
      (local.set $gz (f64.sub (f64.mul (f64.load (i32.add (local.get $predictedZ) (local.get $at))) (local.get $inverse)) (local.get $oz)))
      (f64.store offset=0 (i32.add (local.get $particleGrid) (i32.mul (local.get $i) (i32.const 24))) (local.get $gx))
      (f64.store offset=8 (i32.add (local.get $particleGrid) (i32.mul (local.get $i) (i32.const 24))) (local.get $gy))
      (f64.store offset=16 (i32.add (local.get $particleGrid) (i32.mul (local.get $i) (i32.const 24))) (local.get $gz))
      (local.set $cx (f64.floor (local.get $gx)))
      (local.set $cy (f64.floor (local.get $gy)))
      (local.set $cz (f64.floor (local.get $gz)))
      (if (i32.or (i32.or (i32.or (f64.lt (local.get $cx) (f64.const 1)) (f64.lt (local.get $cy) (f64.const 1)))
            (i32.or (f64.lt (local.get $cz) (f64.const 1)) (f64.gt (local.get $cx) (local.get $lastX))))
            (i32.or (f64.gt (local.get $cy) (local.get $lastY)) (f64.gt (local.get $cz) (local.get $lastZ))))
        (then
          (i32.store (i32.add (local.get $particleCell) (i32.shl (local.get $i) (i32.const 2))) (i32.const -1)))
        (else
          (local.set $cell (f64.add (f64.mul (f64.add (f64.mul (local.get $cz) (f64.convert_i32_s (local.get $ny)))
            (local.get $cy)) (f64.convert_i32_s (local.get $nx))) (local.get $cx)))
          (local.set $c (i32.trunc_sat_f64_s (local.get $cell)))
          (i32.store (i32.add (local.get $particleCell) (i32.shl (local.get $i) (i32.const 2))) (local.get $c))
          ;; A NaN cell (stored as 0) adds nothing, as the TypeScript's typed arrays ignore a NaN index.
          (if (f64.eq (local.get $cell) (local.get $cell))
            (then
              (local.set $c (i32.add (local.get $cellVolume) (i32.shl (local.get $c) (i32.const 3))))
              (f64.store (local.get $c) (f64.add (f64.load (local.get $c))
                (f64.mul (f64.load (i32.add (local.get $mass) (local.get $at)))
                  (f64.load (i32.add (local.get $inverseRestDensity) (i32.shl
                    (i32.load16_u (i32.add (local.get $material) (i32.shl (local.get $i) (i32.const 1)))) (i32.const 3)))))))))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $particles)))
    (local.set $c (i32.const 0))
    (block $typed (loop $types
      (br_if $typed (i32.ge_u (local.get $c) (local.get $cells)))
      (i32.store8 (i32.add (local.get $type) (local.get $c))
        (f64.ge (f64.load (i32.add (local.get $cellVolume) (i32.shl (local.get $c) (i32.const 3)))) (local.get $half)))
      (local.set $c (i32.add (local.get $c) (i32.const 1)))
      (br $types))))

  ;; besideType: whether one of the 6 neighbours of inner cell c (rows of nx, layers of nxy cells) has type `wanted`.
  (func $besideType (param $type i32) (param $c i32) (param $nx i32) (param $nxy i32) (param $wanted i32) (result i32)
    (local $at i32)
    (local.set $at (i32.add (local.get $type) (local.get $c)))
    (i32.or (i32.or (i32.or
      (i32.eq (i32.load8_u (i32.sub (local.get $at) (i32.const 1))) (local.get $wanted))
      (i32.eq (i32.load8_u (i32.add (local.get $at) (i32.const 1))) (local.get $wanted)))
      (i32.or
        (i32.eq (i32.load8_u (i32.sub (local.get $at) (local.get $nx))) (local.get $wanted))
        (i32.eq (i32.load8_u (i32.add (local.get $at) (local.get $nx))) (local.get $wanted))))
      (i32.or
        (i32.eq (i32.load8_u (i32.sub (local.get $at) (local.get $nxy))) (local.get $wanted))
        (i32.eq (i32.load8_u (i32.add (local.get $at) (local.get $nxy))) (local.get $wanted)))))

  ;; erodeSurfaceCells: `layers` layers of fluid cells beside air (and in the grid's first and last layers of z)
  ;; become air, except a body's (`cellBody` >= 0); with `freeSurface` the types before (into `classified`) and
  ;; the eroded layers grown back over the fluid cells they took, except beside a thin body (`besideBody`);
  ;; then the full cells: fluid, not a body's, the nearest collider at least `half` away. `flags` marks the cells
  ;; to change in each layer (uint8 per cell).
  (func (export "erodeSurfaceCells")
    (param $cells i32) (param $nx i32) (param $nxy i32) (param $layers i32) (param $freeSurface i32)
    (param $type i32) (param $cellBody i32) (param $besideBody i32) (param $distance i32) (param $half f64)
    (param $classified i32) (param $full i32) (param $flags i32)
    (local $c i32) (local $layer i32) (local $last i32) (local $flag i32)
    (local.set $last (i32.sub (local.get $cells) (local.get $nxy)))
    (if (local.get $freeSurface)
      (then (memory.copy (local.get $classified) (local.get $type) (local.get $cells))))
    (local.set $layer (i32.const 0))
    (block $eroded (loop $erode
      (br_if $eroded (i32.ge_s (local.get $layer) (local.get $layers)))
      (local.set $c (i32.const 0))
      (block $marked (loop $mark
        (br_if $marked (i32.ge_u (local.get $c) (local.get $cells)))
        (local.set $flag (i32.const 0))
        (if (i32.and (i32.eq (i32.load8_u (i32.add (local.get $type) (local.get $c))) (i32.const 1))
              (i32.lt_s (i32.load (i32.add (local.get $cellBody) (i32.shl (local.get $c) (i32.const 2)))) (i32.const 0)))
          (then
            (if (i32.or (i32.lt_s (local.get $c) (local.get $nxy)) (i32.ge_s (local.get $c) (local.get $last)))
              (then (local.set $flag (i32.const 1)))
              (else (local.set $flag
                (call $besideType (local.get $type) (local.get $c) (local.get $nx) (local.get $nxy) (i32.const 0)))))))
        (i32.store8 (i32.add (local.get $flags) (local.get $c)) (local.get $flag))
        (local.set $c (i32.add (local.get $c) (i32.const 1)))
        (br $mark)))
      (local.set $c (i32.const 0))
      (block $applied (loop $apply
        (br_if $applied (i32.ge_u (local.get $c) (local.get $cells)))
        (if (i32.load8_u (i32.add (local.get $flags) (local.get $c)))
          (then (i32.store8 (i32.add (local.get $type) (local.get $c)) (i32.const 0))))
        (local.set $c (i32.add (local.get $c) (i32.const 1)))
        (br $apply)))
      (local.set $layer (i32.add (local.get $layer) (i32.const 1)))
      (br $erode)))
    (if (local.get $freeSurface)
      (then
        (local.set $layer (i32.const 0))
        (block $grown (loop $grow
          (br_if $grown (i32.ge_s (local.get $layer) (local.get $layers)))
          (local.set $c (local.get $nxy))
          (block $marked (loop $mark
            (br_if $marked (i32.ge_s (local.get $c) (local.get $last)))
            (local.set $flag (i32.const 0))
            (if (i32.eqz (i32.or (i32.or
                  (i32.eq (i32.load8_u (i32.add (local.get $type) (local.get $c))) (i32.const 1))
                  (i32.ne (i32.load8_u (i32.add (local.get $classified) (local.get $c))) (i32.const 1)))
                  (i32.eq (i32.load8_u (i32.add (local.get $besideBody) (local.get $c))) (i32.const 1))))
              (then (local.set $flag
                (call $besideType (local.get $type) (local.get $c) (local.get $nx) (local.get $nxy) (i32.const 1)))))
            (i32.store8 (i32.add (local.get $flags) (local.get $c)) (local.get $flag))
            (local.set $c (i32.add (local.get $c) (i32.const 1)))
            (br $mark)))
          (local.set $c (local.get $nxy))
          (block $applied (loop $apply
            (br_if $applied (i32.ge_s (local.get $c) (local.get $last)))
            (if (i32.load8_u (i32.add (local.get $flags) (local.get $c)))
              (then (i32.store8 (i32.add (local.get $type) (local.get $c)) (i32.const 1))))
            (local.set $c (i32.add (local.get $c) (i32.const 1)))
            (br $apply)))
          (local.set $layer (i32.add (local.get $layer) (i32.const 1)))
          (br $grow)))))
    (local.set $c (i32.const 0))
    (block $done (loop $fill
      (br_if $done (i32.ge_u (local.get $c) (local.get $cells)))
      (i32.store8 (i32.add (local.get $full) (local.get $c))
        (i32.and (i32.and
          (i32.eq (i32.load8_u (i32.add (local.get $type) (local.get $c))) (i32.const 1))
          (i32.lt_s (i32.load (i32.add (local.get $cellBody) (i32.shl (local.get $c) (i32.const 2)))) (i32.const 0)))
          (f64.ge (f64.load (i32.add (local.get $distance) (i32.shl (local.get $c) (i32.const 3)))) (local.get $half))))
      (local.set $c (i32.add (local.get $c) (i32.const 1)))
      (br $fill))))

  ;; markSolvedParticles: each particle's mark (float64), 1 where its cell is fluid, or fluid as classified
  ;; (`classified`) beside a thin body (`besideBody`), else 0 (also off the grid, cell -1).
  (func (export "markSolvedParticles")
    (param $n i32) (param $particleCell i32) (param $type i32) (param $besideBody i32) (param $classified i32)
    (param $solved i32)
    (local $i i32) (local $cell i32)
    (block $done (loop $particles
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $cell (i32.load (i32.add (local.get $particleCell) (i32.shl (local.get $i) (i32.const 2)))))
      (f64.store (i32.add (local.get $solved) (i32.shl (local.get $i) (i32.const 3)))
        (if (result f64) (i32.lt_s (local.get $cell) (i32.const 0))
          (then (f64.const 0))
          (else (f64.convert_i32_u (i32.or
            (i32.eq (i32.load8_u (i32.add (local.get $type) (local.get $cell))) (i32.const 1))
            (i32.and
              (i32.eq (i32.load8_u (i32.add (local.get $besideBody) (local.get $cell))) (i32.const 1))
              (i32.eq (i32.load8_u (i32.add (local.get $classified) (local.get $cell))) (i32.const 1))))))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $particles))))

  ;; classifyFaces: the kind of each axis's faces (the lower face of each cell along the axis): dead without fluid
  ;; on a side; solid (the slot of its collider) beside a solid cell, or between two cells within `size` of the
  ;; same collider whose normals along the axis point away from each other by more than `thin` (a thin wall);
  ;; else open. Returns how many faces are solid and lists them in `solidFaces` (axis x `cells` + cell), in the
  ;; TypeScript's order, for their collider velocities.
  (func (export "classifyFaces")
    (param $cells i32) (param $nx i32) (param $nxy i32) (param $type i32) (param $nearest i32) (param $distance i32)
    (param $normals i32) (param $size f64) (param $thin f64) (param $faceKind i32) (param $solidFaces i32)
    (result i32)
    (local $a i32) (local $stride i32) (local $kind i32) (local $normal i32) (local $c i32) (local $below i32)
    (local $ta i32) (local $tb i32) (local $slot i32) (local $solid i32) (local $nearBelow i32) (local $da f64)
    (local $db f64)
    (block $axes (loop $axis
      (br_if $axes (i32.ge_s (local.get $a) (i32.const 3)))
      (local.set $stride (select (i32.const 1) (select (local.get $nx) (local.get $nxy) (i32.eq (local.get $a) (i32.const 1)))
        (i32.eqz (local.get $a))))
      (local.set $kind (i32.add (local.get $faceKind) (i32.shl (i32.mul (local.get $a) (local.get $cells)) (i32.const 2))))
      (local.set $normal (i32.add (local.get $normals) (i32.shl (i32.mul (local.get $a) (local.get $cells)) (i32.const 3))))
      (local.set $c (i32.const 0))
      (block $done (loop $faces
        (br_if $done (i32.ge_u (local.get $c) (local.get $cells)))
        (block $next
          (i32.store (i32.add (local.get $kind) (i32.shl (local.get $c) (i32.const 2))) (i32.const -3))
          (local.set $below (i32.sub (local.get $c) (local.get $stride)))
          (br_if $next (i32.lt_s (local.get $below) (i32.const 0)))
          (local.set $ta (i32.load8_u (i32.add (local.get $type) (local.get $below))))
          (local.set $tb (i32.load8_u (i32.add (local.get $type) (local.get $c))))
          (br_if $next (i32.and (i32.ne (local.get $ta) (i32.const 1)) (i32.ne (local.get $tb) (i32.const 1))))
          (local.set $slot (i32.const -1))
          (local.set $nearBelow (i32.load (i32.add (local.get $nearest) (i32.shl (local.get $below) (i32.const 2)))))
          (if (i32.eq (local.get $ta) (i32.const 2))
            (then (local.set $slot (local.get $nearBelow)))
            (else (if (i32.eq (local.get $tb) (i32.const 2))
              (then (local.set $slot (i32.load (i32.add (local.get $nearest) (i32.shl (local.get $c) (i32.const 2))))))
              (else
                (if (i32.and (i32.ge_s (local.get $nearBelow) (i32.const 0))
                      (i32.eq (local.get $nearBelow) (i32.load (i32.add (local.get $nearest) (i32.shl (local.get $c) (i32.const 2))))))
                  (then
                    (local.set $da (f64.load (i32.add (local.get $distance) (i32.shl (local.get $below) (i32.const 3)))))
                    (local.set $db (f64.load (i32.add (local.get $distance) (i32.shl (local.get $c) (i32.const 3)))))
                    (if (i32.and (i32.and (i32.and (f64.gt (local.get $da) (f64.const 0)) (f64.gt (local.get $db) (f64.const 0)))
                          (f64.lt (f64.add (local.get $da) (local.get $db)) (local.get $size)))
                          (i32.and
                            (f64.lt (f64.load (i32.add (local.get $normal) (i32.shl (local.get $below) (i32.const 3)))) (f64.neg (local.get $thin)))
                            (f64.gt (f64.load (i32.add (local.get $normal) (i32.shl (local.get $c) (i32.const 3)))) (local.get $thin))))
                      (then (local.set $slot (local.get $nearBelow))))))))))
          (if (i32.lt_s (local.get $slot) (i32.const 0))
            (then
              (i32.store (i32.add (local.get $kind) (i32.shl (local.get $c) (i32.const 2))) (i32.const -1))
              (br $next)))
          (i32.store (i32.add (local.get $kind) (i32.shl (local.get $c) (i32.const 2))) (local.get $slot))
          (i32.store (i32.add (local.get $solidFaces) (i32.shl (local.get $solid) (i32.const 2)))
            (i32.add (i32.mul (local.get $a) (local.get $cells)) (local.get $c)))
          (local.set $solid (i32.add (local.get $solid) (i32.const 1))))
        (local.set $c (i32.add (local.get $c) (i32.const 1)))
        (br $faces)))
      (local.set $a (i32.add (local.get $a) (i32.const 1)))
      (br $axis)))
    (local.get $solid))
