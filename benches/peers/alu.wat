;; corpus/bench/alu.kms as WebAssembly: kmst register rN is local $rN (i32,
;; wrapping; JLT is unsigned), each micro-op one statement, HALT r4 returns
;; every register. Registers start at 0, r15 at the stream's seed (S11).
(module
  (func (export "run") (result i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32)
    (local $r0 i32) (local $r1 i32) (local $r2 i32) (local $r3 i32)
    (local $r4 i32) (local $r5 i32) (local $r6 i32) (local $r7 i32)
    (local $r8 i32) (local $r9 i32) (local $r10 i32) (local $r11 i32)
    (local $r12 i32) (local $r13 i32) (local $r14 i32) (local $r15 i32)
    (local.set $r15 (i32.const 7))          ;; .stream seed=7
    (local.set $r3 (i32.const 3))           ;; set r3, 3
    (local.set $r9 (i32.const 1107))        ;; set r9, 1107
    (local.set $r0 (i32.const 0))           ;; set r0, 0
    (loop $outer
      (local.set $r1 (i32.const 100))       ;; outer: set r1, 100
      (loop $inner
        (local.set $r4 (i32.add (local.get $r4) (local.get $r1)))     ;; inner: add r4, r4, r1
        (local.set $r5 (i32.mul (local.get $r1) (local.get $r3)))     ;; mul r5, r1, r3
        (local.set $r6 (i32.add (local.get $r6) (i32.const 5)))        ;; addi r6, r6, 5
        (local.set $r7 (i32.and (local.get $r1) (local.get $r9)))     ;; and r7, r1, r9
        (local.set $r8 (i32.shr_u (local.get $r5) (i32.const 2)))      ;; shr r8, r5, 2
        (local.set $r10 (i32.add (local.get $r10) (local.get $r7)))   ;; add r10, r10, r7
        (local.set $r11 (i32.mul (local.get $r6) (local.get $r3)))    ;; mul r11, r6, r3
        (local.set $r1 (i32.add (local.get $r1) (i32.const -1)))       ;; addi r1, r1, -1
        (br_if $inner (local.get $r1)))                                ;; jnz r1, inner
      (local.set $r0 (i32.add (local.get $r0) (i32.const 1)))          ;; addi r0, r0, 1
      (br_if $outer (i32.lt_u (local.get $r0) (local.get $r9))))      ;; jlt r0, r9, outer
    ;; The final registers r0..r15 (the halt value is one of them).
    (local.get $r0) (local.get $r1) (local.get $r2) (local.get $r3)
    (local.get $r4) (local.get $r5) (local.get $r6) (local.get $r7)
    (local.get $r8) (local.get $r9) (local.get $r10) (local.get $r11)
    (local.get $r12) (local.get $r13) (local.get $r14) (local.get $r15)))
