;; corpus/bench/branchy.kms as WebAssembly (conventions as in alu.wat): the
;; labels three/one/zero/next are the ends of nested blocks, so each kmst jump
;; is one br/br_if. HALT r0 returns every register.
(module
  (func (export "run") (result i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32)
    (local $r0 i32) (local $r1 i32) (local $r2 i32) (local $r3 i32)
    (local $r4 i32) (local $r5 i32) (local $r6 i32) (local $r7 i32)
    (local $r8 i32) (local $r9 i32) (local $r10 i32) (local $r11 i32)
    (local $r12 i32) (local $r13 i32) (local $r14 i32) (local $r15 i32)
    (local.set $r15 (i32.const 99))         ;; .stream seed=99
    (local.set $r10 (i32.const 3))          ;; set r10, 3
    (local.set $r11 (i32.const 0))          ;; set r11, 0
    (local.set $r12 (i32.const 2))          ;; set r12, 2
    (local.set $r9 (i32.const 111111))      ;; set r9, 111111
    (loop $top
      (block $next
        (block $zero
          (block $one
            (block $three
                ;; rand r1: xorshift32 on r15 (docs/spec.md RAND), r1 = the new r15
                (local.set $r15 (i32.xor (local.get $r15) (i32.shl (local.get $r15) (i32.const 13))))
                (local.set $r15 (i32.xor (local.get $r15) (i32.shr_u (local.get $r15) (i32.const 17))))
                (local.set $r15 (i32.xor (local.get $r15) (i32.shl (local.get $r15) (i32.const 5))))
                (local.set $r1 (local.get $r15))
                (local.set $r2 (i32.and (local.get $r1) (local.get $r10)))     ;; and r2, r1, r10
                (br_if $zero (i32.eq (local.get $r2) (local.get $r11)))       ;; jeq r2, r11, zero
                (br_if $one (i32.lt_u (local.get $r2) (local.get $r12)))      ;; jlt r2, r12, one
                (local.set $r2 (i32.add (local.get $r2) (i32.const -2)))       ;; addi r2, r2, -2
                (br_if $three (local.get $r2))                                 ;; jnz r2, three
                (local.set $r5 (i32.add (local.get $r5) (i32.const 2)))        ;; addi r5, r5, 2
                (br $next))                                                     ;; jmp next
            (local.set $r6 (i32.add (local.get $r6) (i32.const 3)))            ;; three: addi r6, r6, 3
            (br $next))                                                         ;; jmp next
          (local.set $r7 (i32.add (local.get $r7) (i32.const 1)))              ;; one: addi r7, r7, 1
          (br $next))                                                           ;; jmp next
        (local.set $r8 (i32.add (local.get $r8) (i32.const 5))))               ;; zero: addi r8, r8, 5
      (local.set $r0 (i32.add (local.get $r0) (i32.const 1)))                  ;; next: addi r0, r0, 1
      (br_if $top (i32.lt_u (local.get $r0) (local.get $r9))))                ;; jlt r0, r9, top
    ;; The final registers r0..r15 (the halt value is one of them).
    (local.get $r0) (local.get $r1) (local.get $r2) (local.get $r3)
    (local.get $r4) (local.get $r5) (local.get $r6) (local.get $r7)
    (local.get $r8) (local.get $r9) (local.get $r10) (local.get $r11)
    (local.get $r12) (local.get $r13) (local.get $r14) (local.get $r15)))
