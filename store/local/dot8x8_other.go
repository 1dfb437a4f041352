//go:build !amd64 || purego

package local

// dot8x8Rows sets out[i] to the dot product of q and slot slots[i]'s row
// of the int8 slab, rows being len(q) bytes long. It panics when a row
// lies outside slab or out is shorter than slots.
func dot8x8Rows(q []int8, slab []int8, slots []int32, out []int32) {
	dot8x8RowsGeneric(q, slab, slots, out[:len(slots)])
}
