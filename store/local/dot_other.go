//go:build !amd64 || purego

package local

// hasAVX2FMA is false: there is no assembly kernel on this architecture
// (or the purego build tag asks for none).
var hasAVX2FMA = false

// dotRows sets out[i] to the dot product of q and slot slots[i]'s row of
// slab, rows being len(q) floats long. It panics when a row lies outside
// slab or out is shorter than slots.
func dotRows(q, slab []float32, slots []int32, out []float32) {
	dotRowsGeneric(q, slab, slots, out[:len(slots)])
}
