//go:build !purego

#include "textflag.h"

// func dot8RowsAVX2(q []int16, slab []int8, slots []int32, out []int32)
//
// For each slot, VPMOVSXBW widens 16 row bytes to int16 and VPMADDWD
// multiplies them by 16 query words, adding pairs into 8 int32 lanes; four
// accumulators take 64 bytes per iteration, then 16 at a time, then the sum
// is reduced horizontally and the last len(q)%16 bytes are added one at a
// time. Sums cannot overflow for len(q) ≤ quantMaxDim. It needs AVX2.
TEXT ·dot8RowsAVX2(SB), NOSPLIT, $0-96
	MOVQ q_base+0(FP), R12
	MOVQ q_len+8(FP), DX
	MOVQ slab_base+24(FP), R8
	MOVQ slots_base+48(FP), R9
	MOVQ slots_len+56(FP), R10
	MOVQ out_base+72(FP), R11
	TESTQ R10, R10
	JEQ done

row:
	// SI walks q, DI walks the row, CX counts the values left.
	MOVLQSX (R9), AX
	IMULQ DX, AX
	LEAQ (R8)(AX*1), DI
	MOVQ R12, SI
	MOVQ DX, CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	CMPQ CX, $64
	JLT tail16

loop64:
	VPMOVSXBW (DI), Y4
	VPMOVSXBW 16(DI), Y5
	VPMOVSXBW 32(DI), Y6
	VPMOVSXBW 48(DI), Y7
	VPMADDWD (SI), Y4, Y4
	VPMADDWD 32(SI), Y5, Y5
	VPMADDWD 64(SI), Y6, Y6
	VPMADDWD 96(SI), Y7, Y7
	VPADDD Y4, Y0, Y0
	VPADDD Y5, Y1, Y1
	VPADDD Y6, Y2, Y2
	VPADDD Y7, Y3, Y3
	ADDQ $64, DI
	ADDQ $128, SI
	SUBQ $64, CX
	CMPQ CX, $64
	JGE loop64

tail16:
	CMPQ CX, $16
	JLT reduce
	VPMOVSXBW (DI), Y4
	VPMADDWD (SI), Y4, Y4
	VPADDD Y4, Y0, Y0
	ADDQ $16, DI
	ADDQ $32, SI
	SUBQ $16, CX
	JMP tail16

reduce:
	VPADDD Y1, Y0, Y0
	VPADDD Y3, Y2, Y2
	VPADDD Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0x4E, X0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0xB1, X0, X1
	VPADDD X1, X0, X0
	VMOVD X0, AX

tail1:
	TESTQ CX, CX
	JEQ store
	MOVBLSX (DI), BX
	MOVWLSX (SI), R13
	IMULL R13, BX
	ADDL BX, AX
	INCQ DI
	ADDQ $2, SI
	DECQ CX
	JMP tail1

store:
	MOVL AX, (R11)
	ADDQ $4, R9
	ADDQ $4, R11
	DECQ R10
	JNZ row

done:
	VZEROUPPER
	RET
