//go:build !purego

package local

// dot8x8RowsAVX2 sets out[i] to the dot product of the int8 vector q and
// the int8 row slab[slots[i]*len(q):][:len(q)]. Every row must lie inside
// slab and len(out) ≥ len(slots): the assembly checks neither.
//
//go:noescape
func dot8x8RowsAVX2(q []int8, slab []int8, slots []int32, out []int32)

// dot8x8Rows sets out[i] to the dot product of q and slot slots[i]'s row
// of the int8 slab, rows being len(q) bytes long: the graph compares rows
// with rows this way. It uses the AVX2 assembly when hasAVX2FMA is set and
// panics when a row lies outside slab or out is shorter than slots.
func dot8x8Rows(q []int8, slab []int8, slots []int32, out []int32) {
	out = out[:len(slots)]
	if !hasAVX2FMA {
		dot8x8RowsGeneric(q, slab, slots, out)
		return
	}
	dim := len(q)
	for _, s := range slots {
		if s < 0 || (int(s)+1)*dim > len(slab) {
			panic("store: int8 row out of range")
		}
	}
	dot8x8RowsAVX2(q, slab, slots, out)
}
