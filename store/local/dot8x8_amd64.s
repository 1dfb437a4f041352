//go:build !purego

#include "textflag.h"

// func dot8x8RowsAVX2(q []int8, slab []int8, slots []int32, out []int32)
//
// dot8RowsAVX2 with an int8 query: VPMOVSXBW widens 16 bytes of the row
// and of the query to int16 and VPMADDWD multiplies them, adding pairs into
// 8 int32 lanes; four accumulators take 64 bytes per iteration, then 16 at
// a time, then the sum is reduced horizontally and the last len(q)%16
// bytes are added one at a time. Sums cannot overflow: |q_j·v_j| ≤ 127²
// and len(q) ≤ quantMaxDim. It needs AVX2.
TEXT ·dot8x8RowsAVX2(SB), NOSPLIT, $0-96
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
	VPMOVSXBW (SI), Y8
	VPMOVSXBW 16(SI), Y9
	VPMOVSXBW 32(SI), Y10
	VPMOVSXBW 48(SI), Y11
	VPMADDWD Y8, Y4, Y4
	VPMADDWD Y9, Y5, Y5
	VPMADDWD Y10, Y6, Y6
	VPMADDWD Y11, Y7, Y7
	VPADDD Y4, Y0, Y0
	VPADDD Y5, Y1, Y1
	VPADDD Y6, Y2, Y2
	VPADDD Y7, Y3, Y3
	ADDQ $64, DI
	ADDQ $64, SI
	SUBQ $64, CX
	CMPQ CX, $64
	JGE loop64

tail16:
	CMPQ CX, $16
	JLT reduce
	VPMOVSXBW (DI), Y4
	VPMOVSXBW (SI), Y8
	VPMADDWD Y8, Y4, Y4
	VPADDD Y4, Y0, Y0
	ADDQ $16, DI
	ADDQ $16, SI
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
	MOVBLSX (SI), R13
	IMULL R13, BX
	ADDL BX, AX
	INCQ DI
	INCQ SI
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
