;; corpus/bench/rand_mod.kms as WebAssembly (conventions as in alu.wat): MOD
;; is i32.rem_u (which traps on a zero divisor where kmst's MOD errs).
;; HALT r4 returns every register.
(module
  (func (export "run") (result i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32)
    (local $r0 i32) (local $r1 i32) (local $r2 i32) (local $r3 i32)
    (local $r4 i32) (local $r5 i32) (local $r6 i32) (local $r7 i32)
    (local $r8 i32) (local $r9 i32) (local $r10 i32) (local $r11 i32)
    (local $r12 i32) (local $r13 i32) (local $r14 i32) (local $r15 i32)
    (local.set $r15 (i32.const 12345))      ;; .stream seed=12345
    (local.set $r2 (i32.const 1000))        ;; set r2, 1000
    (local.set $r9 (i32.const 166666))      ;; set r9, 166666
    (loop $top
      ;; rand r1: xorshift32 on r15 (docs/spec.md RAND), r1 = the new r15
      (local.set $r15 (i32.xor (local.get $r15) (i32.shl (local.get $r15) (i32.const 13))))
      (local.set $r15 (i32.xor (local.get $r15) (i32.shr_u (local.get $r15) (i32.const 17))))
      (local.set $r15 (i32.xor (local.get $r15) (i32.shl (local.get $r15) (i32.const 5))))
      (local.set $r1 (local.get $r15))
      (local.set $r3 (i32.rem_u (local.get $r1) (local.get $r2)))     ;; mod r3, r1, r2
      (local.set $r3 (i32.add (local.get $r3) (i32.const 7)))          ;; addi r3, r3, 7
      (local.set $r4 (i32.add (local.get $r4) (local.get $r3)))       ;; add r4, r4, r3
      (local.set $r0 (i32.add (local.get $r0) (i32.const 1)))          ;; addi r0, r0, 1
      (br_if $top (i32.lt_u (local.get $r0) (local.get $r9))))        ;; jlt r0, r9, top
    ;; The final registers r0..r15 (the halt value is one of them).
    (local.get $r0) (local.get $r1) (local.get $r2) (local.get $r3)
    (local.get $r4) (local.get $r5) (local.get $r6) (local.get $r7)
    (local.get $r8) (local.get $r9) (local.get $r10) (local.get $r11)
    (local.get $r12) (local.get $r13) (local.get $r14) (local.get $r15)))
