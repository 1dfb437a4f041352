//go:build !purego

#include "textflag.h"

// func dotRowsAVX2(q, slab []float32, slots []int32, out []float32)
//
// For each slot, the row's dot product with q is summed in four 8-lane FMA
// accumulators, 32 floats per iteration, then 8 floats at a time, then
// horizontally, then the last len(q)%8 floats one at a time. It needs AVX2
// and FMA; dot_amd64.go only calls it when the CPU has both.
TEXT ·dotRowsAVX2(SB), NOSPLIT, $0-96
	MOVQ q_base+0(FP), R12
	MOVQ q_len+8(FP), DX
	MOVQ slab_base+24(FP), R8
	MOVQ slots_base+48(FP), R9
	MOVQ slots_len+56(FP), R10
	MOVQ out_base+72(FP), R11
	TESTQ R10, R10
	JEQ done

row:
	// SI walks q, DI walks the row, CX counts the floats left.
	MOVLQSX (R9), AX
	IMULQ DX, AX
	LEAQ (R8)(AX*4), DI
	MOVQ R12, SI
	MOVQ DX, CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	CMPQ CX, $32
	JLT tail8

loop32:
	VMOVUPS (SI), Y4
	VMOVUPS 32(SI), Y5
	VMOVUPS 64(SI), Y6
	VMOVUPS 96(SI), Y7
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	CMPQ CX, $32
	JGE loop32

tail8:
	CMPQ CX, $8
	JLT reduce
	VMOVUPS (SI), Y4
	VFMADD231PS (DI), Y4, Y0
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP tail8

reduce:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VMOVHLPS X0, X0, X1
	VADDPS X1, X0, X0
	VMOVSHDUP X0, X1
	VADDSS X1, X0, X0

tail1:
	TESTQ CX, CX
	JEQ store
	VMOVSS (SI), X1
	VFMADD231SS (DI), X1, X0
	ADDQ $4, SI
	ADDQ $4, DI
	DECQ CX
	JMP tail1

store:
	VMOVSS X0, (R11)
	ADDQ $4, R9
	ADDQ $4, R11
	DECQ R10
	JNZ row

done:
	VZEROUPPER
	RET
